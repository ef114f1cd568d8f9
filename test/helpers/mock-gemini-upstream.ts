import type { ServerResponse } from 'node:http';
import { startEventStream, startMockUpstream, writePiecewise } from './mock-upstream';
import type { CommonReply, MockUpstream, RecordedRequest } from './mock-upstream';

/**
 * A local Gemini API (https://ai.google.dev/api) for adapter and end-to-end tests through the
 * real pooled HTTP client (the common machinery: mock-upstream.ts). Google's errors are
 * `{error: {code, message, status, details}}`.
 */

export type MockReply =
  | CommonReply
  /**
   * An `alt=sse` stream: each event is a GenerateContentResponse (objects are JSON-encoded,
   * strings sent as the raw `data`). `chunkBytes` writes the bytes in pieces of that size;
   * `dropAfter` destroys the socket after that many events; `hold` keeps the stream open after
   * the events (a model still generating); `lineEnding` defaults to CRLF as Google sends.
   */
  | {
      type: 'sse';
      events: unknown[];
      status?: number;
      chunkBytes?: number;
      dropAfter?: number;
      hold?: boolean;
      lineEnding?: '\r\n' | '\n';
    }
  /**
   * Gemini's answer to the request as sent, as many candidates as it asks for
   * (`generationConfig.candidateCount`, 1 when unset; https://ai.google.dev/api/generate-content#generationconfig),
   * each with its `index`: candidate i answers `pieces` then `#i`, a token a piece, its
   * finishReason STOP. `usageMetadata.candidatesTokenCount` counts the tokens of all candidates
   * together (https://ai.google.dev/api/generate-content#UsageMetadata). From
   * `:streamGenerateContent`, an event per piece carries that piece of every candidate, the last
   * one their finish reasons and the usage.
   */
  | { type: 'candidates'; pieces: string[]; promptTokenCount: number };

export type GeminiSseReply = Extract<MockReply, { type: 'sse' }>;
/** The replies of Gemini's own formats (the common ones aside). */
export type GeminiReply = Exclude<MockReply, CommonReply>;

/** `baseUrl` is the host root, as configured for the provider; with an empty queue it answers 500. */
export type MockGeminiUpstream = MockUpstream<MockReply>;

export function startMockGeminiUpstream(): Promise<MockGeminiUpstream> {
  return startMockUpstream<MockReply>({
    jsonContentType: 'application/json; charset=UTF-8',
    defaultReply: {
      type: 'json',
      status: 500,
      body: { error: { code: 500, message: 'The mock has no scripted reply.', status: 'INTERNAL' } },
    },
    sendOther: sendGeminiReply,
  });
}

/** A Gemini reply (also Gemini on Vertex AI: mock-vertex-upstream.ts). */
export async function sendGeminiReply(reply: GeminiReply, response: ServerResponse, recorded: RecordedRequest): Promise<void> {
  if (reply.type === 'sse') return sendGeminiSse(reply, response, recorded);
  const { candidates, usage } = candidatesFor(reply, recorded);
  if (!recorded.path.includes(':streamGenerateContent')) {
    response.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
    response.end(
      JSON.stringify({ candidates: candidates.map((texts, index) => candidate(index, texts.join(''), 'STOP')), usageMetadata: usage }),
    );
    return;
  }
  const events = reply.pieces.concat('').map((_, position) => {
    const last = position === reply.pieces.length;
    return {
      candidates: candidates.map((texts, index) => candidate(index, texts[position] ?? '', last ? 'STOP' : undefined)),
      ...(last ? { usageMetadata: usage } : {}),
    };
  });
  return sendGeminiSse({ type: 'sse', events }, response, recorded);
}

/** Each candidate's pieces, and the reply's usage, for the candidateCount the request asked for. */
function candidatesFor(reply: Extract<MockReply, { type: 'candidates' }>, recorded: RecordedRequest) {
  const config = (recorded.body as { generationConfig?: { candidateCount?: number } } | undefined)?.generationConfig;
  const count = config?.candidateCount ?? 1;
  const candidates = Array.from({ length: count }, (_, index) => [...reply.pieces, `#${index}`]);
  const candidatesTokenCount = count * (reply.pieces.length + 1);
  const usage = {
    promptTokenCount: reply.promptTokenCount,
    candidatesTokenCount,
    totalTokenCount: reply.promptTokenCount + candidatesTokenCount,
  };
  return { candidates, usage };
}

function candidate(index: number, text: string, finishReason: string | undefined) {
  return { content: { role: 'model', parts: [{ text }] }, ...(finishReason ? { finishReason } : {}), index };
}

/** An `alt=sse` reply, written as Google writes it (also Gemini on Vertex AI: mock-vertex-upstream.ts). */
export async function sendGeminiSse(reply: GeminiSseReply, response: ServerResponse, recorded: RecordedRequest): Promise<void> {
  startEventStream(response, reply.status);
  const events = reply.dropAfter === undefined ? reply.events : reply.events.slice(0, reply.dropAfter);
  recorded.eventsWritten = events.length;
  const text = sseBody(events, reply.lineEnding);
  // Each piece leaves on its own so that the client sees the splits.
  await writePiecewise(response, text, {
    slices: [reply.chunkBytes ?? (Buffer.byteLength(text) || 1)],
    drop: reply.dropAfter !== undefined,
    hold: reply.hold,
  });
}

/** The bytes of an `alt=sse` stream, one `data:` line per event. */
export function sseBody(events: unknown[], lineEnding: '\r\n' | '\n' = '\r\n'): string {
  return events.map((event) => `data: ${typeof event === 'string' ? event : JSON.stringify(event)}${lineEnding}${lineEnding}`).join('');
}
