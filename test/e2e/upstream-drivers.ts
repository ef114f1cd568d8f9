import {
  errorBody,
  events as anthropicEvents,
  messageBody,
  startMockAnthropicUpstream,
  textStream,
} from '../helpers/mock-anthropic-upstream';
import { startMockGeminiUpstream } from '../helpers/mock-gemini-upstream';
import {
  chatChunk,
  chatCompletionReply,
  chatStreamReply,
  chatTextChunks,
  chatUsageChunk,
  startMockOpenAiUpstream,
  type ScriptedToolCall,
} from '../helpers/mock-openai-upstream';
import type { RecordedRequest } from '../helpers/mock-upstream';

/**
 * One interface over the three mock upstreams, so that the provider-path and failure-path
 * tests script "a reply", "a tool call", "a 500", "garbage", "a stream that drops" once and run
 * them against every provider type, each in its own wire format.
 */
export interface Usage {
  prompt: number;
  completion: number;
}

export interface UpstreamDriver {
  type: 'openai' | 'anthropic' | 'gemini';
  /** The provider credential the gateway is configured with: shaped like the real thing, no words in it (fragments are searched for). */
  providerKey: string;
  /** `base_url` for the config. */
  baseUrl: string;
  requestCount(): number;
  /** The requests the upstream received, in order. */
  requests(): readonly RecordedRequest[];
  /** The provider credential request `index` carried, read from the provider's own header. */
  credentialOf(index: number): string | undefined;
  /** The path (with its query) a chat call to `upstreamModel` goes to, streamed or not. */
  chatPath(upstreamModel: string, stream: boolean): string;
  /** The upstream model name request `index` asked for. */
  upstreamModelOf(index: number): string | undefined;
  /** Resolves when the gateway closed request `index` before its reply was complete. */
  closed(index: number): Promise<void>;
  /** A successful, non-streamed reply. */
  text(text: string, usage: Usage): void;
  /** A successful stream of these text pieces. */
  stream(texts: string[], usage: Usage): void;
  /** A stream with no token counts (servers that ignore include_usage); absent where the format always reports them. */
  streamWithoutUsage?(texts: string[]): void;
  /** A reply that calls one tool. */
  toolCall(call: ToolCall, usage: Usage): void;
  /** The same call streamed, its arguments in pieces where the format splits them. */
  streamToolCall(call: ToolCall, usage: Usage): void;
  /** An error status with the provider's own error body and message. */
  status(status: number, message: string): void;
  /** The provider refusing the gateway's key, quoting (part of) it as real providers do. */
  credentialError(): void;
  /** A 200 whose body is not the provider's format (an HTML page from a proxy). */
  garbage(): void;
  /** No answer at all. */
  hang(): void;
  /** The connection closes without an answer. */
  drop(): void;
  /** A stream that sends its first text pieces, then the connection drops. */
  streamThenDrop(texts: string[]): void;
  /** A stream that sends its first text pieces, then stays open (a model still generating). */
  streamThenHold(texts: string[]): void;
  close(): Promise<void>;
}

/** A tool call as chat completions carry it (`arguments` is JSON text). */
export type ToolCall = ScriptedToolCall;

/** The JSON text cut in two, as streams deliver arguments. */
const halves = (text: string): [string, string] => [text.slice(0, Math.ceil(text.length / 2)), text.slice(Math.ceil(text.length / 2))];

const GARBAGE = '<html><body><h1>502 Bad Gateway</h1></body></html>';

export async function startOpenAiDriver(): Promise<UpstreamDriver> {
  const upstream = await startMockOpenAiUpstream();
  const providerKey = 'sk-proj-Qx7Rv2Lm9Tz4Wb8Nc1Kd6Hf3Gs5Jp0Ya-Ue2Io8';
  return {
    type: 'openai',
    providerKey,
    baseUrl: upstream.baseUrl,
    requestCount: () => upstream.requests.length,
    requests: () => upstream.requests,
    credentialOf: (index) => headerOf(upstream.requests[index], 'authorization')?.replace(/^Bearer /, ''),
    chatPath: () => '/v1/chat/completions',
    upstreamModelOf: (index) => (upstream.requests[index]?.body as { model?: string } | undefined)?.model,
    closed: (index) => upstream.requests[index]?.aborted ?? Promise.reject(new Error(`no request ${index}`)),
    text: (text, usage) => upstream.reply(chatCompletionReply(text, usage)),
    stream: (texts, usage) => upstream.reply(chatStreamReply(texts, usage)),
    streamWithoutUsage: (texts) => upstream.reply({ type: 'sse', events: [...chatTextChunks(texts), { data: chatChunk({}, 'stop') }] }),
    toolCall: (call, usage) => upstream.reply(chatCompletionReply([call], usage)),
    streamToolCall: (call, usage) => {
      const opening = { index: 0, id: call.id, type: 'function', function: { name: call.name, arguments: '' } };
      upstream.reply({
        type: 'sse',
        events: [
          { data: chatChunk({ role: 'assistant', content: null, tool_calls: [opening] }) },
          ...halves(call.arguments).map((piece) => ({ data: chatChunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }) })),
          { data: chatChunk({}, 'tool_calls') },
          { data: chatUsageChunk(usage) },
        ],
      });
    },
    status: (status, message) =>
      upstream.reply({ type: 'json', status, body: { error: { message, type: 'invalid_request_error', param: null, code: null } } }),
    credentialError: () =>
      upstream.reply({
        type: 'json',
        status: 401,
        body: {
          error: {
            message: `Incorrect API key provided: ${providerKey.slice(0, 12)}...${providerKey.slice(-4)}. Full key: ${providerKey}`,
            type: 'invalid_request_error',
            param: null,
            code: 'invalid_api_key',
          },
        },
      }),
    garbage: () => upstream.reply({ type: 'raw', status: 200, body: GARBAGE, contentType: 'text/html' }),
    hang: () => upstream.reply({ type: 'hang' }),
    drop: () => upstream.reply({ type: 'drop' }),
    streamThenDrop: (texts) => upstream.reply({ type: 'sse', events: [...chatTextChunks(texts), { delayMs: 20, drop: true }] }),
    // "Held" long enough for the abort and stall tests, which are over well before this.
    streamThenHold: (texts) =>
      upstream.reply({ type: 'sse', events: [...chatTextChunks(texts), { delayMs: 2_500, data: chatChunk({}, 'stop') }] }),
    close: () => upstream.close(),
  };
}

export async function startAnthropicDriver(): Promise<UpstreamDriver> {
  const upstream = await startMockAnthropicUpstream();
  const providerKey = 'sk-ant-api03-Kq3Vw9Lz2Xr7Tm5Np1Bc8Hd4Fg6Jy0Ws-Pe4Ru7';
  const partial = (texts: string[]) => [
    anthropicEvents.messageStart(10),
    anthropicEvents.textStart(0),
    ...texts.map((text) => anthropicEvents.textDelta(0, text)),
  ];
  return {
    type: 'anthropic',
    providerKey,
    baseUrl: upstream.baseUrl,
    requestCount: () => upstream.requests.length,
    requests: () => upstream.requests,
    credentialOf: (index) => headerOf(upstream.requests[index], 'x-api-key'),
    chatPath: () => '/v1/messages',
    upstreamModelOf: (index) => (upstream.requests[index]?.body as { model?: string } | undefined)?.model,
    closed: (index) => upstream.requests[index]?.aborted ?? Promise.reject(new Error(`no request ${index}`)),
    text: (text, usage) =>
      upstream.reply({
        type: 'json',
        body: messageBody([{ type: 'text', text }], 'end_turn', { input_tokens: usage.prompt, output_tokens: usage.completion }),
      }),
    stream: (texts, usage) =>
      upstream.reply({
        type: 'sse',
        events: textStream(texts, 'end_turn', { input_tokens: usage.prompt, output_tokens: usage.completion }),
      }),
    toolCall: (call, usage) =>
      upstream.reply({
        type: 'json',
        body: messageBody([{ type: 'tool_use', id: call.id, name: call.name, input: JSON.parse(call.arguments) }], 'tool_use', {
          input_tokens: usage.prompt,
          output_tokens: usage.completion,
        }),
      }),
    streamToolCall: (call, usage) =>
      upstream.reply({
        type: 'sse',
        events: [
          anthropicEvents.messageStart(usage.prompt),
          anthropicEvents.toolStart(0, call.id, call.name),
          ...halves(call.arguments).map((piece) => anthropicEvents.jsonDelta(0, piece)),
          anthropicEvents.blockStop(0),
          anthropicEvents.messageDelta('tool_use', usage.completion),
          anthropicEvents.messageStop(),
        ],
      }),
    status: (status, message) => {
      const type = status >= 500 ? 'api_error' : status === 401 ? 'authentication_error' : 'invalid_request_error';
      upstream.reply({ type: 'json', status, body: errorBody(type, message) });
    },
    credentialError: () =>
      upstream.reply({ type: 'json', status: 401, body: errorBody('authentication_error', `invalid x-api-key: ${providerKey}`) }),
    garbage: () => upstream.reply({ type: 'raw', status: 200, body: GARBAGE, contentType: 'text/html' }),
    hang: () => upstream.reply({ type: 'hang' }),
    drop: () => upstream.reply({ type: 'drop' }),
    streamThenDrop: (texts) => {
      const events = partial(texts);
      upstream.reply({ type: 'sse', events, dropAfter: events.length });
    },
    streamThenHold: (texts) => upstream.reply({ type: 'sse', events: partial(texts), hold: true }),
    close: () => upstream.close(),
  };
}

export async function startGeminiDriver(): Promise<UpstreamDriver> {
  const upstream = await startMockGeminiUpstream();
  const providerKey = 'AIzaSyB7qX2mR9vL4tW8nC1kD6hF3gS5jP0yZe';
  const event = (text: string, extra: Record<string, unknown> = {}) => ({
    candidates: [{ content: { role: 'model', parts: text ? [{ text }] : [] }, index: 0, ...extra }],
  });
  const functionCall = (call: ToolCall) => ({
    candidates: [
      {
        content: {
          role: 'model',
          parts: [{ functionCall: { id: call.id, name: call.name, args: JSON.parse(call.arguments) as unknown } }],
        },
        finishReason: 'STOP',
        index: 0,
      },
    ],
  });
  const usageMetadata = (usage: Usage) => ({
    promptTokenCount: usage.prompt,
    candidatesTokenCount: usage.completion,
    totalTokenCount: usage.prompt + usage.completion,
  });
  return {
    type: 'gemini',
    providerKey,
    baseUrl: upstream.baseUrl,
    requestCount: () => upstream.requests.length,
    requests: () => upstream.requests,
    credentialOf: (index) => headerOf(upstream.requests[index], 'x-goog-api-key'),
    chatPath: (model, stream) => `/v1beta/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
    upstreamModelOf: (index) => /\/models\/([^:]+):/.exec(upstream.requests[index]?.path ?? '')?.[1],
    closed: (index) => upstream.requests[index]?.aborted ?? Promise.reject(new Error(`no request ${index}`)),
    text: (text, usage) =>
      upstream.reply({ type: 'json', body: { ...event(text, { finishReason: 'STOP' }), usageMetadata: usageMetadata(usage) } }),
    stream: (texts, usage) =>
      upstream.reply({
        type: 'sse',
        events: [...texts.map((text) => event(text)), { ...event('', { finishReason: 'STOP' }), usageMetadata: usageMetadata(usage) }],
      }),
    streamWithoutUsage: (texts) =>
      upstream.reply({ type: 'sse', events: [...texts.map((text) => event(text)), event('', { finishReason: 'STOP' })] }),
    // Gemini sends a whole function call in one part, streamed or not.
    toolCall: (call, usage) => upstream.reply({ type: 'json', body: { ...functionCall(call), usageMetadata: usageMetadata(usage) } }),
    streamToolCall: (call, usage) =>
      upstream.reply({ type: 'sse', events: [{ ...functionCall(call), usageMetadata: usageMetadata(usage) }] }),
    status: (status, message) => {
      const statusText = status >= 500 ? 'INTERNAL' : status === 401 ? 'UNAUTHENTICATED' : 'INVALID_ARGUMENT';
      upstream.reply({ type: 'json', status, body: { error: { code: status, message, status: statusText } } });
    },
    // Gemini answers a bad key with 400 INVALID_ARGUMENT and an API_KEY_INVALID reason, not 401.
    credentialError: () =>
      upstream.reply({
        type: 'json',
        status: 400,
        body: {
          error: {
            code: 400,
            message: `API key not valid. Please pass a valid API key. (key ${providerKey})`,
            status: 'INVALID_ARGUMENT',
            details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' }],
          },
        },
      }),
    garbage: () => upstream.reply({ type: 'raw', status: 200, body: GARBAGE, contentType: 'text/html' }),
    hang: () => upstream.reply({ type: 'hang' }),
    drop: () => upstream.reply({ type: 'drop' }),
    streamThenDrop: (texts) => {
      const events = texts.map((text) => event(text));
      upstream.reply({ type: 'sse', events, dropAfter: events.length });
    },
    streamThenHold: (texts) => upstream.reply({ type: 'sse', events: texts.map((text) => event(text)), hold: true }),
    close: () => upstream.close(),
  };
}

function headerOf(request: RecordedRequest | undefined, name: string): string | undefined {
  const value = request?.headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

export const DRIVERS = [
  ['openai', startOpenAiDriver],
  ['anthropic', startAnthropicDriver],
  ['gemini', startGeminiDriver],
] as const;
