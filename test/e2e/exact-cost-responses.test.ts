import OpenAI from 'openai';
import { beforeEach, describe, expect, it } from 'vitest';
import { messageBody } from '../helpers/mock-anthropic-upstream';
import { responseUsage, textResponse, textResponseStream, type ResponseUsageCounts } from '../helpers/mock-openai-responses';
import {
  ANTHROPIC_COST,
  ANTHROPIC_USAGE,
  anthropicStream,
  COST_HEADER,
  COST_PATHS,
  type CostUpstreams,
  FEMTO,
  GEMINI_COST,
  GEMINI_USAGE,
  geminiBody,
  keyTotals,
  modelReport,
  OPENAI_COST,
  OPENAI_USAGE,
  openAiChatBody,
  reportRow,
  usdText,
  useRecordingGateway,
} from './exact-cost-setup';

/**
 * Exact cost (docs/pricing.md) on POST /v1/responses (docs/openai-responses.md), streamed and
 * not: passed through to an OpenAI provider serving the Responses API, translated to chat
 * completions, Anthropic and Gemini. The reply's usage in the Responses shape (the response, or
 * the response.completed event), the x-gateway-cost-usd header of a non-streamed reply (a
 * Responses stream carries no cost) and the usage report's tokens, breakdown and spend are the
 * hand-computed values (exact-cost-setup.ts).
 */

/** OpenAI's usage in Responses terms: 800 input of which 600 cached, 120 output of which 80 reasoning. */
const OPENAI_COUNTS: ResponseUsageCounts = { input: 800, cached: 600, output: 120, reasoning: 80 };
const OPENAI_RESPONSES_USAGE = responseUsage(OPENAI_COUNTS);
/** Anthropic's 100 uncached + 400 read + 300 written input tokens are all input_tokens; 400 of them cached. */
const ANTHROPIC_RESPONSES_USAGE = responseUsage({ input: 800, cached: 400, output: 50 });
const GEMINI_RESPONSES_USAGE = responseUsage({ input: 800, cached: 500, output: 100, reasoning: 60 });

describe('exact cost on /v1/responses', () => {
  const fixture = useRecordingGateway();
  let client: OpenAI;

  beforeEach(() => {
    client = new OpenAI({ apiKey: fixture.key, baseURL: `${fixture.gateway.baseUrl}/v1`, maxRetries: 0, timeout: 10_000 });
    fixture.openai.requests.length = 0;
  });

  async function create(model: string) {
    const { data, response } = await client.responses.create({ model, input: 'Hello' }).withResponse();
    return { usage: data.usage, header: response.headers.get(COST_HEADER) };
  }

  /** A streamed response: the usage of response.completed, and the cost header (none). */
  async function stream(model: string) {
    const { data, response } = await client.responses.create({ model, input: 'Hello', stream: true }).withResponse();
    let usage: unknown;
    for await (const event of data) if (event.type === 'response.completed') usage = event.response.usage;
    return { usage, header: response.headers.get(COST_HEADER) };
  }

  /** The Responses upstream's path: OpenAI's usage from a Responses reply. */
  const NATIVE_PATH = {
    ...COST_PATHS.openai,
    model: 'native-chat',
    reply: (upstreams: CostUpstreams) => upstreams.openai.reply({ type: 'json', body: textResponse('gpt-upstream', 'Hi', OPENAI_COUNTS) }),
    streamReply: (upstreams: CostUpstreams) => upstreams.openai.reply(textResponseStream('gpt-upstream', ['H', 'i'], OPENAI_COUNTS)),
  };

  describe.each(
    [
      {
        name: 'passed through to a Responses upstream (responses_api: true)',
        path: NATIVE_PATH,
        usage: OPENAI_RESPONSES_USAGE,
        openaiPath: '/v1/responses',
      },
      {
        name: 'translated to chat completions (openai-type)',
        path: COST_PATHS.openai,
        usage: OPENAI_RESPONSES_USAGE,
        openaiPath: '/v1/chat/completions',
      },
      { name: 'translated to an anthropic-type model', path: COST_PATHS.anthropic, usage: ANTHROPIC_RESPONSES_USAGE },
      { name: 'translated to a gemini-type model', path: COST_PATHS.gemini, usage: GEMINI_RESPONSES_USAGE },
    ].map((row) => [row.name, row] as const),
  )('%s', (_name, { path, usage, openaiPath }) => {
    it('non-streamed: the usage in the Responses shape, the cost in the header and the report', async () => {
      path.reply(fixture);
      const { usage: answered, header } = await create(path.model);
      if (openaiPath) expect(fixture.openai.requests[0]?.path).toBe(openaiPath);
      expect(answered).toEqual(usage);
      expect(header).toBe(path.costText);
      expect(await modelReport(fixture.gateway, fixture.accountId, 1)).toEqual([reportRow(path.model, path.cost, path.row)]);
    });

    it('streamed: response.completed carries the same usage, no cost header, the same report', async () => {
      path.streamReply(fixture);
      const { usage: completed, header } = await stream(path.model);
      expect(completed).toEqual(usage);
      expect(header).toBeNull();
      expect(await modelReport(fixture.gateway, fixture.accountId, 1)).toEqual([reportRow(path.model, path.cost, path.row)]);
    });
  });

  describe('passed through to a Responses upstream (responses_api: true)', () => {
    it('a prompt over the long-context threshold prices every token of the request at the long-context rates', async () => {
      fixture.openai.reply({
        type: 'json',
        body: textResponse('gpt-upstream', 'Hi', { input: 1001, cached: 1, output: 10, reasoning: 4 }),
      });
      const { header } = await create('native-chat');
      // 1,000 x 6 + 1 x 0.6 + 10 x 22.5 = 6,225.6 USD per million.
      const cost = 1000n * 6n * FEMTO + (1n * 6n * FEMTO) / 10n + (10n * 225n * FEMTO) / 10n;
      expect(header).toBe('0.0062256');
      expect(await modelReport(fixture.gateway, fixture.accountId, 1)).toEqual([
        reportRow('native-chat', cost, { prompt_tokens: 1001, completion_tokens: 10, cached_tokens: 1, reasoning_tokens: 4 }),
      ]);
    });
  });

  describe('translated to an anthropic-type model', () => {
    it('a prompt over the long-context threshold: the long-context rates, in the header and the report', async () => {
      const longUsage = { input_tokens: 701, cache_read_input_tokens: 100, cache_creation_input_tokens: 200, output_tokens: 10 };
      fixture.anthropic.reply({ type: 'json', body: messageBody([{ type: 'text', text: 'Hi' }], 'end_turn', longUsage) });
      const { usage, header } = await create('claude-chat');
      expect(usage).toEqual(responseUsage({ input: 1001, cached: 100, output: 10 }));
      const cost = 701n * 6n * FEMTO + (100n * 6n * FEMTO) / 10n + (200n * 75n * FEMTO) / 10n + (10n * 225n * FEMTO) / 10n;
      expect(header).toBe('0.005991');
      expect(await modelReport(fixture.gateway, fixture.accountId, 1)).toEqual([
        reportRow('claude-chat', cost, { prompt_tokens: 1001, completion_tokens: 10, cached_tokens: 100, cache_write_tokens: 200 }),
      ]);
    });
  });

  it('the report sums the four paths: tokens, breakdown and spend of the key', async () => {
    fixture.openai.reply(textResponseStream('gpt-upstream', ['Hi'], OPENAI_COUNTS), { type: 'json', body: openAiChatBody(OPENAI_USAGE) });
    fixture.anthropic.reply({ type: 'sse', events: anthropicStream(ANTHROPIC_USAGE) });
    fixture.gemini.reply({ type: 'json', body: geminiBody('Hi', GEMINI_USAGE) });
    await stream('native-chat');
    await create('oai-chat');
    await stream('claude-chat');
    await create('gemini-chat');
    await modelReport(fixture.gateway, fixture.accountId, 4);
    const spend = Number(usdText(2n * OPENAI_COST + ANTHROPIC_COST + GEMINI_COST)); // 0.010455
    expect(await keyTotals(fixture.gateway, fixture.accountId)).toEqual({
      admin: {
        spend_usd: spend,
        requests: 4,
        prompt_tokens: 3200,
        completion_tokens: 390,
        cached_tokens: 2100,
        cache_write_tokens: 100,
        cache_write_1h_tokens: 200,
        reasoning_tokens: 220,
      },
      public: { spend_usd: spend, requests: 4, prompt_tokens: 3200, completion_tokens: 390 },
    });
  });
});
