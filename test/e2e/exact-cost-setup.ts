import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import {
  events as anthropicEvents,
  messageBody,
  startMockAnthropicUpstream,
  type MockUsage,
  type MockAnthropicUpstream,
} from '../helpers/mock-anthropic-upstream';
import { startMockGeminiUpstream, type MockGeminiUpstream } from '../helpers/mock-gemini-upstream';
import { chatChunk, startMockOpenAiUpstream, type MockOpenAiUpstream, type ScriptedReply } from '../helpers/mock-openai-upstream';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway';
import { upstreamSection } from './helpers';

/**
 * What the exact-cost tests (docs/pricing.md) share: the catalogue, each provider's usage in
 * its own wire format with its hand-computed cost and its report row, the upstream replies that
 * carry it, the mock upstreams and gateway they run against, and the usage report of one key.
 *
 * Every chat model has docs/pricing.md's example prices: input 3, output 15, cache read 0.3,
 * 5-minute write 3.75, 1-hour write 6 USD per million tokens; over 1,000 prompt tokens the
 * long-context rates 6, 22.5, 0.6, 7.5 and 12. A token at p USD per million costs p x 1e9
 * femto-dollars.
 */
const PRICING = `
    pricing:
      input_per_million: 3
      output_per_million: 15
      cache_read_per_million: 0.3
      cache_write_per_million: 3.75
      cache_write_1h_per_million: 6
      long_context:
        threshold_tokens: 1000
        input_per_million: 6
        output_per_million: 22.5
        cache_read_per_million: 0.6
        cache_write_per_million: 7.5
        cache_write_1h_per_million: 12`;

/**
 * Models `oai-chat` (chat completions), `native-chat` (an OpenAI provider serving the Responses
 * API, `responses_api: true`, on the same mock), `claude-chat`, `gemini-chat` and `oai-embed`.
 */
export function configYaml(openai: MockOpenAiUpstream, anthropic: MockAnthropicUpstream, gemini: MockGeminiUpstream): string {
  const chatModel = (id: string, provider: string) => `
  - id: ${id}
    provider: ${provider}
    capabilities: [chat]
    context_window: 200000${PRICING}`;
  return `${upstreamSection()}
providers:
  oai: { type: openai, base_url: ${openai.baseUrl}, api_key_env: COST_OPENAI_KEY }
  native: { type: openai, base_url: ${openai.baseUrl}, api_key_env: COST_OPENAI_KEY, responses_api: true }
  claude: { type: anthropic, base_url: ${anthropic.baseUrl}, api_key_env: COST_ANTHROPIC_KEY }
  google: { type: gemini, base_url: ${gemini.baseUrl}, api_key_env: COST_GEMINI_KEY }
models:${chatModel('oai-chat', 'oai')}${chatModel('native-chat', 'native')}${chatModel('claude-chat', 'claude')}${chatModel('gemini-chat', 'google')}
  - id: oai-embed
    provider: oai
    capabilities: [embeddings]
    context_window: 8191
    pricing: { input_per_million: 0.13, output_per_million: 0 }
`;
}

export const COST_ENV = { COST_OPENAI_KEY: 'sk-proj-cost', COST_ANTHROPIC_KEY: 'sk-ant-cost', COST_GEMINI_KEY: 'AIza-cost' };

export const FEMTO = 1_000_000_000n; // femto-dollars per token at 1 USD per million tokens

/** The header of a non-streamed reply's cost. */
export const COST_HEADER = 'x-gateway-cost-usd';

/** Anthropic: 100 uncached + 400 read + 100 written for 5 minutes + 200 for 1 hour; 50 out. */
export const ANTHROPIC_USAGE: MockUsage = {
  input_tokens: 100,
  cache_read_input_tokens: 400,
  cache_creation_input_tokens: 300,
  cache_creation: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 200 },
  output_tokens: 50,
};
// 100 x 3 + 400 x 0.3 + 100 x 3.75 + 200 x 6 + 50 x 15 (x 1e9): 2,745,000,000,000 femto-dollars.
export const ANTHROPIC_COST =
  100n * 3n * FEMTO + (400n * 3n * FEMTO) / 10n + (100n * 375n * FEMTO) / 100n + 200n * 6n * FEMTO + 50n * 15n * FEMTO;
/** Its report row's tokens: 800 prompt tokens, 400 read, 100 + 200 written. */
export const ANTHROPIC_ROW = {
  prompt_tokens: 800,
  completion_tokens: 50,
  cached_tokens: 400,
  cache_write_tokens: 100,
  cache_write_1h_tokens: 200,
};

/** OpenAI: 800 prompt tokens of which 600 cached; 120 completion tokens of which 80 reasoning. */
export const OPENAI_USAGE = {
  prompt_tokens: 800,
  completion_tokens: 120,
  total_tokens: 920,
  prompt_tokens_details: { cached_tokens: 600, audio_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: 80, audio_tokens: 0 },
};
export const OPENAI_COST = 200n * 3n * FEMTO + (600n * 3n * FEMTO) / 10n + 120n * 15n * FEMTO;
/** OpenAI over the long-context threshold: 1,001 prompt tokens of which 1 cached; 10 completion tokens. */
export const OPENAI_LONG_CONTEXT_USAGE = {
  prompt_tokens: 1001,
  completion_tokens: 10,
  total_tokens: 1011,
  prompt_tokens_details: { cached_tokens: 1 },
};
export const OPENAI_ROW = { prompt_tokens: 800, completion_tokens: 120, cached_tokens: 600, reasoning_tokens: 80 };

/** Gemini: 800 prompt tokens of which 500 cached; 40 candidate tokens plus 60 thinking tokens. */
export const GEMINI_USAGE = {
  promptTokenCount: 800,
  cachedContentTokenCount: 500,
  candidatesTokenCount: 40,
  thoughtsTokenCount: 60,
  totalTokenCount: 900,
};
export const GEMINI_COST = 300n * 3n * FEMTO + (500n * 3n * FEMTO) / 10n + 100n * 15n * FEMTO;
export const GEMINI_ROW = { prompt_tokens: 800, completion_tokens: 100, cached_tokens: 500, reasoning_tokens: 60 };

/** The header's text: femto-dollars as a decimal without trailing zeros. */
export function usdText(femto: bigint): string {
  const digits = femto.toString().padStart(16, '0');
  return `${digits.slice(0, -15)}.${digits.slice(-15)}`.replace(/\.?0+$/, '');
}

// ---- Upstream replies carrying a usage --------------------------------------------------

/** A streamed Anthropic reply saying "Hi" whose message_start and message_delta carry `usage`. */
export function anthropicStream(usage: MockUsage) {
  return [
    anthropicEvents.messageStart(usage.input_tokens, usage),
    anthropicEvents.textStart(0),
    anthropicEvents.textDelta(0, 'Hi'),
    anthropicEvents.blockStop(0),
    anthropicEvents.messageDelta('end_turn', usage.output_tokens),
    anthropicEvents.messageStop(),
  ];
}

/** A chat completion saying "Hi" with `usage`. */
export function openAiChatBody(usage: unknown) {
  return {
    id: 'chatcmpl-cost',
    object: 'chat.completion',
    created: 1,
    model: 'upstream',
    choices: [{ index: 0, message: { role: 'assistant', content: 'Hi' }, finish_reason: 'stop' }],
    usage,
  };
}

/** The chat stream of `openAiChatBody`, the usage in its final `choices: []` chunk. */
export function openAiChatStream(usage: unknown): ScriptedReply {
  return {
    type: 'sse',
    events: [
      { data: chatChunk({ role: 'assistant', content: 'Hi' }) },
      { data: chatChunk({}, 'stop') },
      { data: { ...chatChunk({}), choices: [], usage } },
    ],
  };
}

/** A Gemini GenerateContentResponse with `text` and, when given, `usageMetadata`. */
export function geminiBody(text: string, usageMetadata?: unknown) {
  return {
    candidates: [{ content: { role: 'model', parts: [{ text }] }, index: 0, finishReason: 'STOP' }],
    ...(usageMetadata ? { usageMetadata } : {}),
  };
}

/** The events of a Gemini stream saying "Hi", the usage in the last one. */
export function geminiStreamEvents(usageMetadata: unknown): unknown[] {
  return [{ candidates: [{ content: { role: 'model', parts: [{ text: 'H' }] }, index: 0 }] }, geminiBody('i', usageMetadata)];
}

// ---- One request of each provider type -------------------------------------------------

/** The three mock upstreams, as useCostUpstreams starts them. */
export interface CostUpstreams {
  openai: MockOpenAiUpstream;
  anthropic: MockAnthropicUpstream;
  gemini: MockGeminiUpstream;
}

/**
 * Each provider type's usage above: its chat model, its cost (and the header's text of it), its
 * report row, and the upstream replies, non-streamed and streamed, that carry it.
 */
export const COST_PATHS = {
  anthropic: {
    model: 'claude-chat',
    cost: ANTHROPIC_COST,
    costText: '0.002745',
    row: ANTHROPIC_ROW,
    reply: (upstreams: CostUpstreams) =>
      upstreams.anthropic.reply({ type: 'json', body: messageBody([{ type: 'text', text: 'Hi' }], 'end_turn', ANTHROPIC_USAGE) }),
    streamReply: (upstreams: CostUpstreams) => upstreams.anthropic.reply({ type: 'sse', events: anthropicStream(ANTHROPIC_USAGE) }),
  },
  openai: {
    model: 'oai-chat',
    cost: OPENAI_COST,
    costText: '0.00258',
    row: OPENAI_ROW,
    reply: (upstreams: CostUpstreams) => upstreams.openai.reply({ type: 'json', body: openAiChatBody(OPENAI_USAGE) }),
    streamReply: (upstreams: CostUpstreams) => upstreams.openai.reply(openAiChatStream(OPENAI_USAGE)),
  },
  gemini: {
    model: 'gemini-chat',
    cost: GEMINI_COST,
    costText: '0.00255',
    row: GEMINI_ROW,
    reply: (upstreams: CostUpstreams) => upstreams.gemini.reply({ type: 'json', body: geminiBody('Hi', GEMINI_USAGE) }),
    streamReply: (upstreams: CostUpstreams) => upstreams.gemini.reply({ type: 'sse', events: geminiStreamEvents(GEMINI_USAGE) }),
  },
};

/** The key's totals in the admin report once one request of each type is in it (0.007875 USD). */
export const ONE_OF_EACH_TOTAL = {
  spend_usd: Number(usdText(ANTHROPIC_COST + OPENAI_COST + GEMINI_COST)),
  requests: 3,
  prompt_tokens: 2400,
  completion_tokens: 270,
  cached_tokens: 1500,
  cache_write_tokens: 100,
  cache_write_1h_tokens: 200,
  reasoning_tokens: 140,
};

/** The same in GET /v1/usage/keys, which shows no breakdown. */
export const ONE_OF_EACH_PUBLIC_TOTAL = {
  spend_usd: ONE_OF_EACH_TOTAL.spend_usd,
  requests: 3,
  prompt_tokens: 2400,
  completion_tokens: 270,
};

// ---- The upstreams and the gateway ------------------------------------------------------

/**
 * The three mock upstreams of `configYaml`, started for the enclosing describe and closed after
 * it. Read the fields inside tests (they exist from beforeAll on).
 */
export function useCostUpstreams(): CostUpstreams {
  const upstreams = {} as CostUpstreams;
  beforeAll(async () => {
    [upstreams.openai, upstreams.anthropic, upstreams.gemini] = await Promise.all([
      startMockOpenAiUpstream(),
      startMockAnthropicUpstream(),
      startMockGeminiUpstream(),
    ]);
  });
  afterAll(async () => {
    await Promise.all([upstreams.openai?.close(), upstreams.anthropic?.close(), upstreams.gemini?.close()]);
  });
  return upstreams;
}

/**
 * `useCostUpstreams`, and before each test a fresh gateway on them recording to its database,
 * with one account and one key, closed after the test. Read the fields inside tests.
 */
export function useRecordingGateway() {
  const fixture = Object.assign(useCostUpstreams(), { gateway: undefined as unknown as TestGateway, accountId: '', key: '' });
  beforeEach(async () => {
    fixture.gateway = await startTestGateway({ configYaml: configYaml(fixture.openai, fixture.anthropic, fixture.gemini), env: COST_ENV });
    fixture.accountId = await fixture.gateway.createAccount();
    ({ key: fixture.key } = await fixture.gateway.createKey(fixture.accountId));
  });
  afterEach(async () => {
    await fixture.gateway?.close();
  });
  return fixture;
}

// ---- The usage report -------------------------------------------------------------------

export interface ModelUsageRow {
  model: string;
  spend_usd: number;
  requests: number;
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  cache_write_tokens: number;
  cache_write_1h_tokens: number;
  reasoning_tokens: number;
}

/**
 * The admin report's per-model rows of the account's key (docs/pricing.md, "Stored and
 * reported"), once `requests` requests are in it: a stream's usage may be recorded just after
 * its last byte reached the client. Without each model's split by deployment (these models have
 * one each: exact-cost.test.ts checks the split).
 */
export async function modelReport(gateway: TestGateway, accountId: string, requests: number): Promise<ModelUsageRow[]> {
  for (let attempt = 0; ; attempt++) {
    await gateway.gateway.recorder?.flush();
    const admin = await gateway.http.get(`/v1/admin/accounts/${accountId}/usage`).set(gateway.admin()).expect(200);
    const rows = ((admin.body.keys[0]?.models ?? []) as (ModelUsageRow & { deployments: unknown })[]).map(
      ({ deployments: _deployments, ...row }) => row,
    );
    const recorded = rows.reduce((sum, row) => sum + row.requests, 0);
    if (recorded >= requests || attempt >= 100) return rows;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The one report row of a request of `model`: its tokens, breakdown and spend. */
export function reportRow(model: string, cost: bigint, tokens: Partial<ModelUsageRow>): ModelUsageRow {
  return {
    model,
    spend_usd: Number(usdText(cost)),
    requests: 1,
    prompt_tokens: 0,
    completion_tokens: 0,
    cached_tokens: 0,
    cache_write_tokens: 0,
    cache_write_1h_tokens: 0,
    reasoning_tokens: 0,
    ...tokens,
  };
}

/** The key's totals in the admin report (with the breakdown) and in `GET /v1/usage/keys` (only the fields of docs/usage-report.md, "The answer"). */
export async function keyTotals(gateway: TestGateway, accountId: string): Promise<{ admin: unknown; public: unknown }> {
  const admin = await gateway.http.get(`/v1/admin/accounts/${accountId}/usage`).set(gateway.admin()).expect(200);
  const usageKey = await gateway.createUsageKey(accountId);
  const report = await gateway.http.get('/v1/usage/keys').set('authorization', `Bearer ${usageKey}`).expect(200);
  return { admin: admin.body.keys[0].total, public: report.body.keys[0].total };
}
