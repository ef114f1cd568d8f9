import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { messageBody } from '../helpers/mock-anthropic-upstream';
import { embeddingsReply } from '../helpers/mock-openai-upstream';
import { startTestGateway } from '../helpers/test-gateway';
import {
  ANTHROPIC_COST,
  ANTHROPIC_ROW,
  ANTHROPIC_USAGE,
  configYaml,
  COST_ENV,
  COST_PATHS,
  FEMTO,
  GEMINI_COST,
  GEMINI_ROW,
  ONE_OF_EACH_PUBLIC_TOTAL,
  ONE_OF_EACH_TOTAL,
  OPENAI_COST,
  OPENAI_LONG_CONTEXT_USAGE,
  OPENAI_ROW,
  OPENAI_USAGE,
  openAiChatBody,
  openAiChatStream,
  reportRow,
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

/** A chat completion's usage: its prompt tokens (`cached` of them cached), completion tokens and, where given, reasoning tokens. */
function chatUsage(prompt: number, completion: number, cached: number, reasoning?: number) {
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: cached },
    ...(reasoning === undefined ? {} : { completion_tokens_details: { reasoning_tokens: reasoning } }),
  };
}

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

  describe.each(
    [
      {
        type: 'anthropic' as const,
        what: '5-minute and 1-hour writes and reads priced apart',
        femto: 2_745_000_000_000n,
        usage: chatUsage(800, 50, 400),
        event: {
          promptTokens: 800,
          completionTokens: 50,
          cachedTokens: 400,
          cacheWriteTokens: 100,
          cacheWrite1hTokens: 200,
          reasoningTokens: 0,
        },
      },
      {
        type: 'openai' as const,
        what: 'cached tokens at the cache price, reasoning tokens as output, details passed on',
        femto: 2_580_000_000_000n,
        usage: chatUsage(800, 120, 600, 80),
        event: { promptTokens: 800, completionTokens: 120, cachedTokens: 600, reasoningTokens: 80, cacheWriteTokens: 0 },
      },
      {
        type: 'gemini' as const,
        what: 'cached content at the cache price, thinking tokens added to the completion as reasoning',
        femto: 2_550_000_000_000n,
        usage: chatUsage(800, 100, 500, 60),
        event: { promptTokens: 800, completionTokens: 100, cachedTokens: 500, reasoningTokens: 60 },
      },
    ].map((row) => [row.type, row] as const),
  )('%s', (_type, { type, what, femto, usage, event }) => {
    const path = COST_PATHS[type];

    it(`non-streamed: ${what}, cost in the header`, async () => {
      path.reply(upstreams);
      const { completion, header } = await chat(path.model);
      expect(completion.usage).toEqual(usage);
      expect(path.cost).toBe(femto);
      expect(header).toBe(path.costText);
      expect(lastEvent()).toMatchObject({ ...event, costFemtoUsd: path.cost });
    });

    it('streamed: the same usage and cost, cost_usd in the usage chunk', async () => {
      path.streamReply(upstreams);
      const collected = await streamedUsage(path.model);
      expect(collected.usageChunks).toHaveLength(1);
      expect(collected.usageChunks[0]?.usage).toEqual({ ...usage, cost_usd: Number(path.costText) });
      expect(lastEvent()).toMatchObject({ ...event, costFemtoUsd: path.cost });
    });
  });

  describe('anthropic', () => {
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
        body: openAiChatBody(OPENAI_LONG_CONTEXT_USAGE),
      });
      expect((await chat('oai-chat')).header).toBe(usdText(1000n * 6n * FEMTO + (1n * 6n * FEMTO) / 10n + (10n * 225n * FEMTO) / 10n));
    });

    it('embeddings: the cost header of the input tokens', async () => {
      upstreams.openai.reply(embeddingsReply([[0.5, -0.25]], 1000));
      const { response } = await e2e.client.embeddings
        .create({ model: 'oai-embed', input: 'Hello', encoding_format: 'float' })
        .withResponse();
      // 1,000 x 0.13 USD per million.
      expect(response.headers.get('x-gateway-cost-usd')).toBe('0.00013');
      expect(lastEvent()).toMatchObject({ promptTokens: 1000, costFemtoUsd: 130_000_000_000n });
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
      for (const path of [COST_PATHS.anthropic, COST_PATHS.openai, COST_PATHS.gemini]) {
        path.reply(upstreams);
        await post(path.model);
      }
      await gateway.gateway.recorder?.flush();

      const spend = ONE_OF_EACH_TOTAL.spend_usd;
      const admin = await gateway.http.get(`/v1/admin/accounts/${accountId}/usage`).set(gateway.admin()).expect(200);
      const entry = admin.body.keys[0];
      expect(entry.total).toEqual(ONE_OF_EACH_TOTAL);
      expect(entry.daily).toHaveLength(1);
      expect(entry.daily[0]).toMatchObject({ spend_usd: spend, cached_tokens: 1500, reasoning_tokens: 140 });
      // Each model is one deployment, named like it (docs/routing.md): its split is the model's own.
      const models = [
        reportRow('claude-chat', ANTHROPIC_COST, ANTHROPIC_ROW),
        reportRow('gemini-chat', GEMINI_COST, GEMINI_ROW),
        reportRow('oai-chat', OPENAI_COST, OPENAI_ROW),
      ];
      expect(entry.models).toEqual(
        models.map(({ model, ...counts }) => ({ model, ...counts, deployments: [{ deployment: model, ...counts }] })),
      );

      const usageKey = await gateway.createUsageKey(accountId);
      const report = await gateway.http.get('/v1/usage/keys').set('authorization', `Bearer ${usageKey}`).expect(200);
      const publicEntry = report.body.keys[0];
      expect(publicEntry.total).toEqual(ONE_OF_EACH_PUBLIC_TOTAL);
      expect(Object.keys(publicEntry).sort()).toEqual(['blocked', 'created_at', 'daily', 'hint', 'name', 'status', 'total']);
      expect(Object.keys(publicEntry.daily[0]).sort()).toEqual(['completion_tokens', 'date', 'prompt_tokens', 'requests', 'spend_usd']);
    } finally {
      await gateway.close();
    }
  });
});
