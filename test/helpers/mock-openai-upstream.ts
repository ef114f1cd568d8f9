import type { ServerResponse } from 'node:http';
import { drainedOrClosed, sleep, startEventStream, startMockUpstream } from './mock-upstream';
import type { CommonReply, MockUpstream, RecordedRequest } from './mock-upstream';

/**
 * A local server speaking OpenAI's wire format (Chat Completions, streaming and Embeddings:
 * https://platform.openai.com/docs/api-reference/chat,
 * https://platform.openai.com/docs/api-reference/embeddings; the Responses API's named events:
 * mock-openai-responses.ts), for adapter and end-to-end tests through the real pooled HTTP
 * client (the common machinery: mock-upstream.ts).
 */

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

/** Writes a scripted `sse` reply (also the stream replies of OpenAI-compatible clouds: mock-azure-upstream.ts). */
export async function sendSse(
  reply: Extract<ScriptedReply, { type: 'sse' }>,
  response: ServerResponse,
  recorded: RecordedRequest,
): Promise<void> {
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

/** Token counts of a scripted reply. */
export interface ChatUsage {
  prompt: number;
  completion: number;
}

const usageBody = (usage: ChatUsage) => ({
  prompt_tokens: usage.prompt,
  completion_tokens: usage.completion,
  total_tokens: usage.prompt + usage.completion,
});

/** A tool call as chat completions carry it (`arguments` is JSON text). */
export interface ScriptedToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** A non-streamed chat completion: `text`, or tool calls (finish_reason `tool_calls`). */
export function chatCompletionReply(text: string | ScriptedToolCall[], usage: ChatUsage, model = 'upstream'): ScriptedReply {
  const message =
    typeof text === 'string'
      ? { role: 'assistant', content: text }
      : {
          role: 'assistant',
          content: null,
          tool_calls: text.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })),
        };
  return {
    type: 'json',
    body: {
      id: 'chatcmpl-x',
      object: 'chat.completion',
      created: 1,
      model,
      choices: [{ index: 0, message, finish_reason: typeof text === 'string' ? 'stop' : 'tool_calls' }],
      usage: usageBody(usage),
    },
  };
}

/** One streamed chunk with one choice. */
export function chatChunk(delta: Record<string, unknown>, finishReason: string | null = null, model = 'upstream') {
  return {
    id: 'chatcmpl-x',
    object: 'chat.completion.chunk',
    created: 1,
    model,
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  };
}

/** The opening chunks of a stream of these text pieces (role, then each piece). */
export function chatTextChunks(texts: string[], model = 'upstream'): SseStep[] {
  return [
    { data: chatChunk({ role: 'assistant', content: '' }, null, model) },
    ...texts.map((text) => ({ data: chatChunk({ content: text }, null, model) })),
  ];
}

/** The usage chunk that ends a stream asked for with `stream_options.include_usage`: no choice. */
export function chatUsageChunk(usage: ChatUsage, model = 'upstream') {
  return { ...chatChunk({}, null, model), choices: [], usage: usageBody(usage) };
}

/** A whole stream: the text pieces, `stop`, then the usage chunk (`stream_options.include_usage`). */
export function chatStreamReply(texts: string[], usage: ChatUsage, model = 'upstream'): ScriptedReply {
  return {
    type: 'sse',
    events: [...chatTextChunks(texts, model), { data: chatChunk({}, 'stop', model) }, { data: chatUsageChunk(usage, model) }],
  };
}

/** An embeddings reply: these vectors, `prompt` tokens. */
export function embeddingsReply(vectors: number[][], promptTokens: number, model = 'upstream'): ScriptedReply {
  return {
    type: 'json',
    body: {
      object: 'list',
      data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })),
      model,
      usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
    },
  };
}

/**
 * A provider's prompt cache, as OpenAI documents it (platform.openai.com/docs/guides/prompt-caching):
 * a request whose prompt starts with a prefix this upstream has seen before reports that prefix
 * as `usage.prompt_tokens_details.cached_tokens`; every other upstream (another organisation,
 * another region) has its own cache. Prefixes are counted whole messages at a time (tools and
 * the messages before), a token per 4 characters of their JSON. The reply is `text`.
 */
export function promptCacheResponder(text: string): (recorded: RecordedRequest) => ScriptedReply {
  const seen = new Set<string>();
  return (recorded) => {
    const body = recorded.body as { messages?: unknown[]; tools?: unknown[] } | undefined;
    const messages = body?.messages ?? [];
    let prefix = JSON.stringify(body?.tools ?? []);
    let prompt = Math.ceil(prefix.length / 4);
    let cached = 0;
    for (const message of messages) {
      const part = JSON.stringify(message);
      prefix += part;
      prompt += Math.ceil(part.length / 4);
      if (seen.has(prefix)) cached = prompt;
      else seen.add(prefix);
    }
    const reply = chatCompletionReply(text, { prompt, completion: Math.ceil(text.length / 4) });
    const usage = (reply as { body: { usage: Record<string, unknown> } }).body.usage;
    usage.prompt_tokens_details = { cached_tokens: cached };
    return reply;
  };
}
