import type { ServerResponse } from 'node:http';
import {
  drainedOrClosed,
  sleep,
  startEventStream,
  startMockUpstream,
  type CommonReply,
  type MockUpstream,
  type RecordedRequest,
} from './mock-upstream';

/**
 * A local server speaking OpenAI's wire format (Chat Completions, streaming and Embeddings:
 * https://platform.openai.com/docs/api-reference/chat,
 * https://platform.openai.com/docs/api-reference/embeddings; the Responses API's named events:
 * mock-openai-responses.ts), for adapter and end-to-end tests through the real pooled HTTP
 * client (the common machinery: mock-upstream.ts).
 */

export type { RecordedRequest };

/** One step of a scripted event stream, after an optional pause. */
export type SseStep = { delayMs?: number } & (
  | { data: unknown } // `data: <JSON or the string as is>` + blank line
  | { event: string; data: unknown } // `event: <name>` + `data: <JSON>` + blank line (Responses API)
  | { raw: string } // bytes exactly as given (comments, CRLF, split events, …)
  | { drop: true } // destroy the socket here: a mid-stream drop
);

export type ScriptedReply =
  | CommonReply
  /** `text/event-stream`; `[DONE]` is appended unless `done: false`. */
  | { type: 'sse'; status?: number; events: SseStep[]; done?: boolean; headers?: Record<string, string> };

/** `baseUrl` includes the version path, as the `openai` provider expects it. */
export type MockOpenAiUpstream = MockUpstream<ScriptedReply>;

export function startMockOpenAiUpstream(): Promise<MockOpenAiUpstream> {
  return startMockUpstream<ScriptedReply>({
    basePath: '/v1',
    defaultReply: {
      type: 'json',
      status: 500,
      body: { error: { message: 'No reply scripted.', type: 'server_error', param: null, code: null } },
    },
    sendOther: sendSse,
  });
}

async function sendSse(reply: Extract<ScriptedReply, { type: 'sse' }>, response: ServerResponse, recorded: RecordedRequest): Promise<void> {
  startEventStream(response, reply.status, 'text/event-stream', reply.headers);
  for (const step of reply.events) {
    if (step.delayMs) await sleep(step.delayMs);
    if (response.destroyed) return;
    if ('drop' in step) {
      response.socket?.destroy();
      return;
    }
    const flowing = response.write(stepText(step));
    recorded.eventsWritten++;
    // A full socket buffer: wait until the reader (the gateway) takes more.
    if (!flowing) await drainedOrClosed(response);
  }
  if (reply.done !== false) response.write('data: [DONE]\n\n');
  response.end();
}

function stepText(step: { raw: string } | { data: unknown; event?: string }): string {
  if ('raw' in step) return step.raw;
  const data = `data: ${typeof step.data === 'string' ? step.data : JSON.stringify(step.data)}\n\n`;
  return step.event === undefined ? data : `event: ${step.event}\n${data}`;
}
