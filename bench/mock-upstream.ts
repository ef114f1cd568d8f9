import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { EventStreamCodec } from '@smithy/core/event-streams';
import { fromUtf8, toUtf8 } from '@smithy/core/serde';

/**
 * The benchmark's upstream: an OpenAI-compatible server that answers at once, run in its own
 * process so that its CPU is not the gateway's. Replies are built once at start; per request
 * it only reads the body, parses it (to know `stream` and the number of inputs) and writes.
 *
 * A path prefix `/delay-<ms>` (e.g. base URL `http://host/delay-50/v1`) spaces the events of
 * a stream `<ms>` apart, first one included: a slow model for the open-streams and
 * time-to-first-byte probes. `POST /model/<id>/converse-stream` answers as Amazon Bedrock's
 * ConverseStream does, in its binary event-stream framing (its signature is not checked here:
 * the gateway's signing is what is measured).
 */
export interface MockUpstreamOptions {
  /** Content events of a streamed reply (one word each); the non-streamed reply has as many words. */
  chunks: number;
  /** Values per embedding vector. */
  embeddingDimensions: number;
}

export const DEFAULT_MOCK_OPTIONS: MockUpstreamOptions = { chunks: 20, embeddingDimensions: 1536 };

const CREATED = 1_767_225_600;
const WORDS = ['Load', 'tests', 'show', 'where', 'time', 'goes', 'when', 'nothing', 'else', 'waits'];

interface Replies {
  /**
   * The Anthropic Messages API's stream (https://platform.claude.com/docs/en/build-with-claude/streaming),
   * an event a write like the chat stream's, and its Message.
   */
  messageEvents: Buffer[];
  message: Buffer;
  /** ConverseStream's events (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStreamOutput.html), framed. */
  converseEvents: Buffer[];
  completion: Buffer;
  streamEvents: Buffer[];
  usageEvent: Buffer;
  done: Buffer;
  embedding: { float: string; base64: string };
}

function buildReplies(options: MockUpstreamOptions): Replies {
  const words = Array.from({ length: options.chunks }, (_, index) => `${WORDS[index % WORDS.length] ?? 'word'} `);
  const usage = { prompt_tokens: 42, completion_tokens: options.chunks, total_tokens: 42 + options.chunks };
  const completion = {
    id: 'chatcmpl-bench',
    object: 'chat.completion',
    created: CREATED,
    model: 'bench-upstream',
    choices: [{ index: 0, message: { role: 'assistant', content: words.join('') }, finish_reason: 'stop', logprobs: null }],
    usage,
    system_fingerprint: 'fp_bench',
  };
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    Buffer.from(
      `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: CREATED, model: 'bench-upstream', system_fingerprint: 'fp_bench', choices, ...extra })}\n\n`,
    );
  const streamEvents = [
    chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]),
    ...words.map((word) => chunk([{ index: 0, delta: { content: word }, finish_reason: null }])),
    chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]),
  ];
  const vector = Array.from({ length: options.embeddingDimensions }, (_, index) => Math.fround(Math.sin(index + 1) / 10));
  const floats = Buffer.alloc(vector.length * 4);
  vector.forEach((value, index) => floats.writeFloatLE(value, index * 4));
  const anthropicUsage = { input_tokens: 42, output_tokens: options.chunks, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const message = {
    id: 'msg_bench',
    type: 'message',
    role: 'assistant',
    model: 'bench-upstream',
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: anthropicUsage,
  };
  const event = (payload: { type: string } & Record<string, unknown>) => `event: ${payload.type}\ndata: ${JSON.stringify(payload)}\n\n`;
  const messageEvents = [
    event({ type: 'message_start', message: { ...message, usage: { ...anthropicUsage, output_tokens: 1 } } }),
    event({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
    event({ type: 'ping' }),
    ...words.map((word) => event({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: word } })),
    event({ type: 'content_block_stop', index: 0 }),
    event({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: options.chunks } }),
    event({ type: 'message_stop' }),
  ];
  const codec = new EventStreamCodec(toUtf8, fromUtf8);
  const text = (value: string) => ({ type: 'string' as const, value });
  const converse = (eventType: string, payload: unknown) =>
    Buffer.from(
      codec.encode({
        headers: { ':message-type': text('event'), ':event-type': text(eventType), ':content-type': text('application/json') },
        body: fromUtf8(JSON.stringify(payload)),
      }),
    );
  const converseEvents = [
    converse('messageStart', { role: 'assistant' }),
    ...words.map((word) => converse('contentBlockDelta', { contentBlockIndex: 0, delta: { text: word } })),
    converse('contentBlockStop', { contentBlockIndex: 0 }),
    converse('messageStop', { stopReason: 'end_turn' }),
    converse('metadata', {
      usage: { inputTokens: 42, outputTokens: options.chunks, totalTokens: 42 + options.chunks },
      metrics: { latencyMs: 1 },
    }),
  ];
  return {
    converseEvents,
    messageEvents: messageEvents.map((text) => Buffer.from(text)),
    message: Buffer.from(JSON.stringify({ ...message, content: [{ type: 'text', text: words.join('') }], stop_reason: 'end_turn' })),
    completion: Buffer.from(JSON.stringify(completion)),
    streamEvents,
    usageEvent: chunk([], { usage }),
    done: Buffer.from('data: [DONE]\n\n'),
    embedding: { float: JSON.stringify(vector), base64: JSON.stringify(floats.toString('base64')) },
  };
}

export function createMockUpstream(options: MockUpstreamOptions = DEFAULT_MOCK_OPTIONS): Server {
  const replies = buildReplies(options);
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => answer(request, response, Buffer.concat(chunks).toString('utf8'), replies));
  });
  server.keepAliveTimeout = 120_000;
  return server;
}

function answer(request: IncomingMessage, response: ServerResponse, text: string, replies: Replies): void {
  if (request.method === 'POST' && /^\/model\/[^/]+\/converse-stream$/.test(request.url ?? '')) {
    response.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream' });
    for (const event of replies.converseEvents) response.write(event);
    response.end();
    return;
  }
  // The OTLP/HTTP collector of a gateway with traces on (`npm run bench -- --traces`): spans taken and dropped.
  if (request.method === 'POST' && request.url === '/v1/traces') return json(response, 200, Buffer.from('{}'));
  const match = /^(?:\/delay-(\d+))?(\/v1\/(?:chat\/completions|embeddings|messages))$/.exec(request.url ?? '');
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return json(response, 400, Buffer.from('{"error":{"message":"bad JSON","type":"invalid_request_error"}}'));
  }
  if (request.method !== 'POST' || !match)
    return json(response, 404, Buffer.from('{"error":{"message":"not found","type":"invalid_request_error"}}'));
  const delayMs = Number(match[1] ?? 0);
  if (match[2] === '/v1/embeddings') return embeddings(response, body, replies);
  if (match[2] === '/v1/messages') {
    if (body.stream !== true) return json(response, 200, replies.message);
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (const event of replies.messageEvents) response.write(event);
    response.end();
    return;
  }
  if (body.stream !== true) return json(response, 200, replies.completion);

  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const options = body.stream_options as { include_usage?: boolean } | undefined;
  const events =
    options?.include_usage === true ? [...replies.streamEvents, replies.usageEvent, replies.done] : [...replies.streamEvents, replies.done];
  if (delayMs === 0) {
    for (const event of events) response.write(event);
    response.end();
    return;
  }
  let next = 0;
  const timer = setInterval(() => {
    const event = events[next++];
    if (event) response.write(event);
    if (next >= events.length) {
      clearInterval(timer);
      response.end();
    }
  }, delayMs);
  response.on('close', () => clearInterval(timer));
}

function embeddings(response: ServerResponse, body: Record<string, unknown>, replies: Replies): void {
  const count = Array.isArray(body.input) ? body.input.length : 1;
  const vector = body.encoding_format === 'base64' ? replies.embedding.base64 : replies.embedding.float;
  const data = Array.from({ length: count }, (_, index) => `{"object":"embedding","index":${index},"embedding":${vector}}`).join(',');
  const tokens = 8 * count;
  json(
    response,
    200,
    Buffer.from(
      `{"object":"list","data":[${data}],"model":"bench-embed-upstream","usage":{"prompt_tokens":${tokens},"total_tokens":${tokens}}}`,
    ),
  );
}

function json(response: ServerResponse, status: number, body: Buffer): void {
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': body.length });
  response.end(body);
}

async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { port: { type: 'string', default: '0' }, chunks: { type: 'string' }, dimensions: { type: 'string' } },
  });
  const server = createMockUpstream({
    chunks: Number(values.chunks ?? DEFAULT_MOCK_OPTIONS.chunks),
    embeddingDimensions: Number(values.dimensions ?? DEFAULT_MOCK_OPTIONS.embeddingDimensions),
  });
  await new Promise<void>((resolve) => server.listen(Number(values.port), '127.0.0.1', resolve));
  // The parent reads the port from the first line.
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
  process.once('SIGTERM', () => process.exit(0));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main(process.argv.slice(2));
}
