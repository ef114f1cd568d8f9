import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { messageBody } from '../helpers/mock-anthropic-upstream';
import { startTestGateway } from '../helpers/test-gateway';
import {
  ANTHROPIC_COST,
  ANTHROPIC_USAGE,
  anthropicStream,
  configYaml,
  COST_ENV,
  FEMTO,
  GEMINI_COST,
  GEMINI_USAGE,
  geminiBody,
  geminiStreamEvents,
  OPENAI_COST,
  OPENAI_USAGE,
  openAiChatBody,
  openAiChatStream,
  usdText,
  useCostUpstreams,
} from './exact-cost-setup';
import { collect, startE2e, type E2e } from './helpers';

/**
 * Exact cost (docs/pricing.md) on chat completions and embeddings, through each provider type,
 * streamed and not: the upstream reports cached, cache-written (5-minute and 1-hour) and
 * reasoning tokens in its own wire format; the client's usage, the x-gateway-cost-usd header or
 * the stream's cost_usd, the usage event and the usage report carry the hand-computed values
 * (exact-cost-setup.ts) to the last digit. The Messages and Responses routes:
 * exact-cost-messages.test.ts, exact-cost-responses.test.ts.
 */
const messages = [{ role: 'user' as const, content: 'Hello' }];

describe('exact cost of cached, cache-written, reasoning and long-context tokens', () => {
  const upstreams = useCostUpstreams();
  let e2e: E2e;

  beforeEach(async () => {
    e2e = await startE2e({
      configYaml: configYaml(upstreams.openai, upstreams.anthropic, upstreams.gemini),
      env: COST_ENV,
    });
  });
  afterEach(async () => {
    await e2e.close();
  });

  function lastEvent() {
    const event = e2e.usage.events.at(-1);
    if (!event) throw new Error('no usage event');
    return event;
  }

  async function chat(model: string) {
    const { data, response } = await e2e.client.chat.completions.create({ model, messages }).withResponse();
    return { completion: data, header: response.headers.get('x-gateway-cost-usd') };
  }

  async function streamedUsage(model: string, includeUsage = true) {
    const stream = await e2e.client.chat.completions.create({
      model,
      messages,
      stream: true,
      ...(includeUsage ? { stream_options: { include_usage: true } } : {}),
    });
    return collect(stream);
  }

  describe('anthropic', () => {
    it('non-streamed: 5-minute and 1-hour writes and reads priced apart, cost in the header', async () => {
      upstreams.anthropic.reply({ type: 'json', body: messageBody([{ type: 'text', text: 'Hi' }], 'end_turn', ANTHROPIC_USAGE) });
      const { completion, header } = await chat('claude-chat');
      expect(completion.usage).toEqual({
        prompt_tokens: 800,
        completion_tokens: 50,
        total_tokens: 850,
        prompt_tokens_details: { cached_tokens: 400 },
      });
      expect(ANTHROPIC_COST).toBe(2_745_000_000_000n);
      expect(header).toBe('0.002745');
      expect(lastEvent()).toMatchObject({
        promptTokens: 800,
        completionTokens: 50,
        cachedTokens: 400,
        cacheWriteTokens: 100,
        cacheWrite1hTokens: 200,
        reasoningTokens: 0,
        costFemtoUsd: ANTHROPIC_COST,
      });
    });

    it('streamed: the same usage and cost, cost_usd in the usage chunk', async () => {
      upstreams.anthropic.reply({ type: 'sse', events: anthropicStream(ANTHROPIC_USAGE) });
      const collected = await streamedUsage('claude-chat');
      expect(collected.usageChunks).toHaveLength(1);
      expect(collected.usageChunks[0]?.usage).toEqual({
        prompt_tokens: 800,
        completion_tokens: 50,
        total_tokens: 850,
        prompt_tokens_details: { cached_tokens: 400 },
        cost_usd: 0.002745,
      });
      expect(lastEvent()).toMatchObject({
        promptTokens: 800,
        cachedTokens: 400,
        cacheWriteTokens: 100,
        cacheWrite1hTokens: 200,
        costFemtoUsd: ANTHROPIC_COST,
      });
    });

    it('cache writes without the lifetime breakdown are 5-minute writes', async () => {
      const { cache_creation: _, ...withoutBreakdown } = ANTHROPIC_USAGE;
      upstreams.anthropic.reply({ type: 'json', body: messageBody([{ type: 'text', text: 'Hi' }], 'end_turn', withoutBreakdown) });
      const { header } = await chat('claude-chat');
      const cost = 100n * 3n * FEMTO + (400n * 3n * FEMTO) / 10n + (300n * 375n * FEMTO) / 100n + 50n * 15n * FEMTO;
      expect(header).toBe(usdText(cost));
      expect(lastEvent()).toMatchObject({ cacheWriteTokens: 300, cacheWrite1hTokens: 0, costFemtoUsd: cost });
    });

    it('a prompt over the long-context threshold prices every token of the request at the long-context rates', async () => {
      // 701 + 100 read + 200 written (5 min): 1,001 prompt tokens > 1,000.
      upstreams.anthropic.reply({
        type: 'json',
        body: messageBody([{ type: 'text', text: 'Hi' }], 'end_turn', {
          input_tokens: 701,
          cache_read_input_tokens: 100,
          cache_creation_input_tokens: 200,
          output_tokens: 10,
        }),
      });
      const { completion, header } = await chat('claude-chat');
      expect(completion.usage?.prompt_tokens).toBe(1001);
      const cost = 701n * 6n * FEMTO + (100n * 6n * FEMTO) / 10n + (200n * 75n * FEMTO) / 10n + (10n * 225n * FEMTO) / 10n;
      expect(cost).toBe(5_991_000_000_000n);
      expect(header).toBe('0.005991');
      expect(lastEvent().costFemtoUsd).toBe(cost);
    });
  });

  describe('openai', () => {
    it('non-streamed: cached tokens at the cache price, reasoning tokens as output, details passed on', async () => {
      upstreams.openai.reply({ type: 'json', body: openAiChatBody(OPENAI_USAGE) });
      const { completion, header } = await chat('oai-chat');
      expect(completion.usage).toEqual({
        prompt_tokens: 800,
        completion_tokens: 120,
        total_tokens: 920,
        prompt_tokens_details: { cached_tokens: 600 },
        completion_tokens_details: { reasoning_tokens: 80 },
      });
      expect(OPENAI_COST).toBe(2_580_000_000_000n);
      expect(header).toBe('0.00258');
      expect(lastEvent()).toMatchObject({
        promptTokens: 800,
        completionTokens: 120,
        cachedTokens: 600,
        reasoningTokens: 80,
        cacheWriteTokens: 0,
        costFemtoUsd: OPENAI_COST,
      });
    });

    it('streamed: the same usage and cost, cost_usd in the usage chunk', async () => {
      upstreams.openai.reply(openAiChatStream(OPENAI_USAGE));
      const collected = await streamedUsage('oai-chat');
      expect(collected.usageChunks[0]?.usage).toEqual({
        prompt_tokens: 800,
        completion_tokens: 120,
        total_tokens: 920,
        prompt_tokens_details: { cached_tokens: 600 },
        completion_tokens_details: { reasoning_tokens: 80 },
        cost_usd: 0.00258,
      });
      expect(lastEvent()).toMatchObject({ cachedTokens: 600, reasoningTokens: 80, costFemtoUsd: OPENAI_COST });
    });

    it('a stream whose client did not ask for usage gets no usage chunk, and the usage is still priced', async () => {
      upstreams.openai.reply(openAiChatStream(OPENAI_USAGE));
      const collected = await streamedUsage('oai-chat', false);
      expect(collected.usageChunks).toHaveLength(0);
      expect(lastEvent().costFemtoUsd).toBe(OPENAI_COST);
    });

    it('an OpenAI-compatible upstream that sends no details: every token uncached, no details in the reply', async () => {
      upstreams.openai.reply({ type: 'json', body: openAiChatBody({ prompt_tokens: 800, completion_tokens: 50, total_tokens: 850 }) });
      const { completion, header } = await chat('oai-chat');
      expect(completion.usage).toEqual({ prompt_tokens: 800, completion_tokens: 50, total_tokens: 850 });
      expect(header).toBe('0.00315');
      expect(lastEvent()).toMatchObject({
        cachedTokens: 0,
        cacheWriteTokens: 0,
        cacheWrite1hTokens: 0,
        reasoningTokens: 0,
        costFemtoUsd: 800n * 3n * FEMTO + 50n * 15n * FEMTO,
      });
    });

    it('a prompt of exactly the threshold keeps the base rates; one token more takes the long-context ones', async () => {
      upstreams.openai.reply({ type: 'json', body: openAiChatBody({ prompt_tokens: 1000, completion_tokens: 10, total_tokens: 1010 }) });
      expect((await chat('oai-chat')).header).toBe(usdText(1000n * 3n * FEMTO + 10n * 15n * FEMTO));
      upstreams.openai.reply({
        type: 'json',
        body: openAiChatBody({
          prompt_tokens: 1001,
          completion_tokens: 10,
          total_tokens: 1011,
          prompt_tokens_details: { cached_tokens: 1 },
        }),
      });
      expect((await chat('oai-chat')).header).toBe(usdText(1000n * 6n * FEMTO + (1n * 6n * FEMTO) / 10n + (10n * 225n * FEMTO) / 10n));
    });

    it('embeddings: the cost header of the input tokens', async () => {
      upstreams.openai.reply({
        type: 'json',
        body: {
          object: 'list',
          data: [{ object: 'embedding', index: 0, embedding: [0.5, -0.25] }],
          model: 'upstream',
          usage: { prompt_tokens: 1000, total_tokens: 1000 },
        },
      });
      const { response } = await e2e.client.embeddings
        .create({ model: 'oai-embed', input: 'Hello', encoding_format: 'float' })
        .withResponse();
      // 1,000 x 0.13 USD per million.
      expect(response.headers.get('x-gateway-cost-usd')).toBe('0.00013');
      expect(lastEvent()).toMatchObject({ promptTokens: 1000, costFemtoUsd: 130_000_000_000n });
    });
  });

  describe('gemini', () => {
    it('non-streamed: cached content at the cache price, thinking tokens added to the completion as reasoning', async () => {
      upstreams.gemini.reply({ type: 'json', body: geminiBody('Hi', GEMINI_USAGE) });
      const { completion, header } = await chat('gemini-chat');
      expect(completion.usage).toEqual({
        prompt_tokens: 800,
        completion_tokens: 100,
        total_tokens: 900,
        prompt_tokens_details: { cached_tokens: 500 },
        completion_tokens_details: { reasoning_tokens: 60 },
      });
      expect(GEMINI_COST).toBe(2_550_000_000_000n);
      expect(header).toBe('0.00255');
      expect(lastEvent()).toMatchObject({
        promptTokens: 800,
        completionTokens: 100,
        cachedTokens: 500,
        reasoningTokens: 60,
        costFemtoUsd: GEMINI_COST,
      });
    });

    it('streamed: the same usage and cost, cost_usd in the usage chunk', async () => {
      upstreams.gemini.reply({
        type: 'sse',
        events: geminiStreamEvents(GEMINI_USAGE),
      });
      const collected = await streamedUsage('gemini-chat');
      expect(collected.usageChunks[0]?.usage).toMatchObject({ prompt_tokens: 800, completion_tokens: 100, cost_usd: 0.00255 });
      expect(lastEvent()).toMatchObject({ cachedTokens: 500, reasoningTokens: 60, costFemtoUsd: GEMINI_COST });
    });
  });

  it('the usage report: the admin API shows the breakdown and the per-model split; GET /v1/usage/keys keeps its fields', async () => {
    // A gateway that records to its database (the other tests keep events in memory).
    const gateway = await startTestGateway({
      configYaml: configYaml(upstreams.openai, upstreams.anthropic, upstreams.gemini),
      env: COST_ENV,
    });
    try {
      const accountId = await gateway.createAccount();
      const { key } = await gateway.createKey(accountId);
      const post = (model: string) =>
        gateway.http.post('/v1/chat/completions').set('authorization', `Bearer ${key}`).send({ model, messages }).expect(200);
      upstreams.anthropic.reply({ type: 'json', body: messageBody([{ type: 'text', text: 'Hi' }], 'end_turn', ANTHROPIC_USAGE) });
      await post('claude-chat');
      upstreams.openai.reply({ type: 'json', body: openAiChatBody(OPENAI_USAGE) });
      await post('oai-chat');
      upstreams.gemini.reply({ type: 'json', body: geminiBody('Hi', GEMINI_USAGE) });
      await post('gemini-chat');
      await gateway.gateway.recorder?.flush();

      const spend = Number(usdText(ANTHROPIC_COST + OPENAI_COST + GEMINI_COST)); // 0.007875
      const admin = await gateway.http.get(`/v1/admin/accounts/${accountId}/usage`).set(gateway.admin()).expect(200);
      const entry = admin.body.keys[0];
      expect(entry.total).toEqual({
        spend_usd: spend,
        requests: 3,
        prompt_tokens: 2400,
        completion_tokens: 270,
        cached_tokens: 1500,
        cache_write_tokens: 100,
        cache_write_1h_tokens: 200,
        reasoning_tokens: 140,
      });
      expect(entry.daily).toHaveLength(1);
      expect(entry.daily[0]).toMatchObject({ spend_usd: spend, cached_tokens: 1500, reasoning_tokens: 140 });
      // Each model is one deployment, named like it (docs/routing.md): its split is the model's own.
      const models = [
        {
          model: 'claude-chat',
          spend_usd: 0.002745,
          requests: 1,
          prompt_tokens: 800,
          completion_tokens: 50,
          cached_tokens: 400,
          cache_write_tokens: 100,
          cache_write_1h_tokens: 200,
          reasoning_tokens: 0,
        },
        {
          model: 'gemini-chat',
          spend_usd: 0.00255,
          requests: 1,
          prompt_tokens: 800,
          completion_tokens: 100,
          cached_tokens: 500,
          cache_write_tokens: 0,
          cache_write_1h_tokens: 0,
          reasoning_tokens: 60,
        },
        {
          model: 'oai-chat',
          spend_usd: 0.00258,
          requests: 1,
          prompt_tokens: 800,
          completion_tokens: 120,
          cached_tokens: 600,
          cache_write_tokens: 0,
          cache_write_1h_tokens: 0,
          reasoning_tokens: 80,
        },
      ];
      expect(entry.models).toEqual(
        models.map(({ model, ...counts }) => ({ model, ...counts, deployments: [{ deployment: model, ...counts }] })),
      );

      const usageKey = await gateway.createUsageKey(accountId);
      const report = await gateway.http.get('/v1/usage/keys').set('authorization', `Bearer ${usageKey}`).expect(200);
      const publicEntry = report.body.keys[0];
      expect(publicEntry.total).toEqual({ spend_usd: spend, requests: 3, prompt_tokens: 2400, completion_tokens: 270 });
      expect(Object.keys(publicEntry).sort()).toEqual(['blocked', 'created_at', 'daily', 'hint', 'name', 'status', 'total']);
      expect(Object.keys(publicEntry.daily[0]).sort()).toEqual(['completion_tokens', 'date', 'prompt_tokens', 'requests', 'spend_usd']);
    } finally {
      await gateway.close();
    }
  });
});
