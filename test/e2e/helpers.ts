import Anthropic from '@anthropic-ai/sdk';
import OpenAI, { APIError } from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { MemoryUsageSink, type UsageEvent } from '../../server/usage/types';
import { MOCK_MODEL, startMockAnthropicUpstream, type MockAnthropicUpstream } from '../helpers/mock-anthropic-upstream';
import { startTestGateway, type TestGateway, type TestGatewayOptions } from '../helpers/test-gateway';

export { captureLogger } from '../helpers/capture-logger';

/**
 * End-to-end harness: a real gateway listening on a port (startTestGateway), an account and
 * an `sk-` key, and the official `openai` and `@anthropic-ai/sdk` clients pointed at it. Usage
 * events go to memory.
 */
export interface E2e {
  gateway: TestGateway;
  client: OpenAI;
  /** The Anthropic client, for /v1/messages. */
  anthropic: Anthropic;
  usage: MemoryUsageSink;
  apiKey: string;
  keyId: string;
  close(): Promise<void>;
}

export async function startE2e(options: TestGatewayOptions = {}): Promise<E2e> {
  const usage = new MemoryUsageSink();
  const gateway = await startTestGateway({ usageSink: usage, ...options });
  const accountId = await gateway.createAccount();
  const { id, key } = await gateway.createKey(accountId);
  const client = new OpenAI({ apiKey: key, baseURL: `${gateway.baseUrl}/v1`, maxRetries: 0, timeout: 10_000 });
  const anthropic = new Anthropic({ apiKey: key, baseURL: gateway.baseUrl, maxRetries: 0 });
  return { gateway, client, anthropic, usage, apiKey: key, keyId: id, close: () => gateway.close() };
}

/**
 * For the enclosing describe: a mock upstream from `startUpstream` and an E2e gateway on it,
 * configured by `configYaml`, closed after it; each test starts with no upstream requests
 * recorded. Read the fields inside tests (they exist from beforeAll on).
 */
export function useUpstreamE2e<Upstream extends { requests: unknown[]; close(): Promise<void> }>(
  startUpstream: () => Promise<Upstream>,
  configYaml: (upstream: Upstream) => string,
  options: TestGatewayOptions = {},
) {
  const fixture = { upstream: undefined as unknown as Upstream, e2e: undefined as unknown as E2e };
  beforeAll(async () => {
    fixture.upstream = await startUpstream();
    fixture.e2e = await startE2e({ ...options, configYaml: configYaml(fixture.upstream) });
  });
  beforeEach(() => {
    fixture.upstream.requests.length = 0;
  });
  afterAll(async () => {
    await fixture.e2e?.close();
    await fixture.upstream?.close();
  });
  return fixture;
}

/**
 * One entry of a config's `models` list: the catalogue id, its provider and upstream model, its
 * capabilities and context window, `pricing` (the inside of the pricing mapping), and `extra`
 * lines where given; a line of the YAML, without the newline.
 */
export function modelEntry(
  id: string,
  provider: string,
  upstreamModel: string,
  capabilities: string,
  contextWindow: number,
  pricing: string,
  ...extra: string[]
): string {
  return `  - id: ${id}
    provider: ${provider}
    upstream_model: ${upstreamModel}
    capabilities: [${capabilities}]
    context_window: ${contextWindow}
    pricing: { ${pricing} }${extra.map((line) => `\n    ${line}`).join('')}`;
}

/** The `upstream` section of the test configs: small timeouts, one retry, no real backoff. */
export function upstreamSection(firstByteTimeoutMs = 2_000): string {
  return `
upstream:
  connect_timeout_ms: 1000
  first_byte_timeout_ms: ${firstByteTimeoutMs}
  idle_timeout_ms: 2000
  max_retries: 1
  retry_base_delay_ms: 1
`;
}

/**
 * An e2e gateway on a mock Messages API (test/helpers/mock-anthropic-upstream.ts): one
 * `anthropic`-type provider, `claude`, with its key in E2E_ANTHROPIC_KEY, and one Claude Haiku
 * model on it, named `modelId`.
 */
export function useAnthropicE2e(modelId: string, providerKey: string) {
  const configYaml = (upstream: MockAnthropicUpstream) => `${upstreamSection()}
providers:
  claude: { type: anthropic, base_url: ${upstream.baseUrl}, api_key_env: E2E_ANTHROPIC_KEY }
models:
${modelEntry(modelId, 'claude', MOCK_MODEL, 'chat, vision, function_calling, json_mode', 200_000, 'input_per_million: 0.8, output_per_million: 4', 'max_output_tokens: 8192')}
`;
  return useUpstreamE2e(startMockAnthropicUpstream, configYaml, { env: { E2E_ANTHROPIC_KEY: providerKey } });
}

/** A Messages stream through the Anthropic SDK: the message the SDK assembles, and the gateway's x-request-id. */
export async function streamedMessage(
  e2e: E2e,
  params: Parameters<E2e['anthropic']['messages']['stream']>[0],
): Promise<{ message: Anthropic.Message; requestId: string | null }> {
  const stream = e2e.anthropic.messages.stream(params);
  const message = await stream.finalMessage();
  return { message, requestId: (await stream.withResponse()).response.headers.get('x-request-id') };
}

export interface CollectedStream {
  chunks: ChatCompletionChunk[];
  text: string;
  roles: string[];
  finishReasons: (string | null)[];
  /** Chunks with `choices: []` and usage (the include_usage chunk). */
  usageChunks: ChatCompletionChunk[];
  /** Tool calls assembled from their deltas, by index. */
  toolCalls: { id?: string; name: string; arguments: string }[];
  /** Each choice's text and finish reason, by its `index` (a request with `n`). */
  byChoice: { text: string; finishReason: string | null }[];
  models: Set<string>;
}

export async function collect(stream: AsyncIterable<ChatCompletionChunk>): Promise<CollectedStream> {
  const result: CollectedStream = {
    chunks: [],
    text: '',
    roles: [],
    finishReasons: [],
    usageChunks: [],
    toolCalls: [],
    byChoice: [],
    models: new Set(),
  };
  for await (const chunk of stream) {
    result.chunks.push(chunk);
    result.models.add(chunk.model);
    if (chunk.choices.length === 0 && chunk.usage) result.usageChunks.push(chunk);
    for (const choice of chunk.choices) {
      if (choice.delta.role) result.roles.push(choice.delta.role);
      if (choice.delta.content) result.text += choice.delta.content;
      if (choice.finish_reason) result.finishReasons.push(choice.finish_reason);
      const own = (result.byChoice[choice.index] ??= { text: '', finishReason: null });
      own.text += choice.delta.content ?? '';
      own.finishReason = choice.finish_reason ?? own.finishReason;
      for (const call of choice.delta.tool_calls ?? []) {
        const entry = (result.toolCalls[call.index] ??= { name: '', arguments: '' });
        if (call.id) entry.id = call.id;
        entry.name += call.function?.name ?? '';
        entry.arguments += call.function?.arguments ?? '';
      }
    }
  }
  return result;
}

/** What `promise` rejected with, as the openai client's APIError; fails when it resolves. */
export async function apiErrorOf(promise: Promise<unknown>): Promise<APIError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof APIError) return error;
    throw error;
  }
  throw new Error('Expected the request to fail.');
}

/** Polls until `find` returns something (usage of streams is recorded when the stream closes). */
export async function waitFor<T>(find: () => T | undefined, what = 'condition', timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = find();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Resolves with true when `promise` settles within `ms`, else false. */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The usage event recorded for the gateway request `requestId` (the `x-request-id` header). */
export function usageFor(e2e: E2e, requestId: string | null | undefined): Promise<UsageEvent> {
  return waitFor(() => e2e.usage.events.find((event) => event.requestId === requestId), `the usage event of ${requestId}`);
}

/** A raw POST to the gateway, for what the openai client hides (bytes, base64, headers). */
export async function rawPost(
  e2e: E2e,
  path: string,
  body: unknown,
  options: { signal?: AbortSignal; headers?: Record<string, string> } = {},
): Promise<Response> {
  return fetch(`${e2e.gateway.baseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${e2e.apiKey}`, 'content-type': 'application/json', ...options.headers },
    body: JSON.stringify(body),
    signal: options.signal ?? null,
  });
}

/** Little-endian float32 values from OpenAI's base64 embedding encoding (a DataView: not the server's decoder). */
export function decodeFloat32Base64(text: string): number[] {
  const bytes = Buffer.from(text, 'base64');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return Array.from({ length: Math.floor(bytes.byteLength / 4) }, (_, index) => view.getFloat32(index * 4, true));
}

/** Every 8+ character fragment of `secret` that `text` contains (the way providers quote keys). */
export function secretFragments(text: string, secret: string): string[] {
  const found: string[] = [];
  for (let start = 0; start + 8 <= secret.length; start++) {
    const fragment = secret.slice(start, start + 8);
    if (text.includes(fragment)) found.push(fragment);
  }
  return found;
}

/** A 1x1 PNG as a data URL, for image parts. */
export const PIXEL_PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
export const PIXEL_DATA_URL = `data:image/png;base64,${PIXEL_PNG_BASE64}`;

/** One user message of `text` and the pixel as an image part (chat completions' shape). */
export function imageQuestion(text = 'What is this?', detail?: 'low' | 'high' | 'auto') {
  const imageUrl = detail ? { url: PIXEL_DATA_URL, detail } : { url: PIXEL_DATA_URL };
  return [
    {
      role: 'user' as const,
      content: [
        { type: 'text' as const, text },
        { type: 'image_url' as const, image_url: imageUrl },
      ],
    },
  ];
}

export const WEATHER_TOOL = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Current weather for a city.',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};
