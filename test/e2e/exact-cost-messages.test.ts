import Anthropic from '@anthropic-ai/sdk';
import { beforeEach, describe, expect, it } from 'vitest';
import { messageBody } from '../helpers/mock-anthropic-upstream';
import {
  ANTHROPIC_COST,
  ANTHROPIC_ROW,
  ANTHROPIC_USAGE,
  anthropicStream,
  COST_HEADER,
  COST_PATHS,
  FEMTO,
  keyTotals,
  modelReport,
  ONE_OF_EACH_PUBLIC_TOTAL,
  ONE_OF_EACH_TOTAL,
  OPENAI_LONG_CONTEXT_USAGE,
  openAiChatBody,
  reportRow,
  useRecordingGateway,
} from './exact-cost-setup';

/**
 * Exact cost (docs/pricing.md) on POST /v1/messages (docs/anthropic-messages.md), streamed and
 * not: passed through to an Anthropic-type model, translated to OpenAI- and Gemini-type ones.
 * The reply's usage in Anthropic's shape, the x-gateway-cost-usd header of a non-streamed reply
 * (a Messages stream carries no cost) and the usage report's tokens, breakdown and spend are
 * the hand-computed values (exact-cost-setup.ts).
 */
const REQUEST = { max_tokens: 256, messages: [{ role: 'user' as const, content: 'Hello' }] };

/** The translated replies' usage: input_tokens without the cached tokens, no cache writes. */
const OPENAI_MESSAGES_USAGE = { input_tokens: 200, output_tokens: 120, cache_read_input_tokens: 600, cache_creation_input_tokens: 0 };
const GEMINI_MESSAGES_USAGE = { input_tokens: 300, output_tokens: 100, cache_read_input_tokens: 500, cache_creation_input_tokens: 0 };

describe('exact cost on /v1/messages', () => {
  const fixture = useRecordingGateway();
  let client: Anthropic;

  beforeEach(() => {
    client = new Anthropic({ apiKey: fixture.key, baseURL: fixture.gateway.baseUrl, maxRetries: 0 });
  });

  async function create(model: string) {
    const { data, response } = await client.messages.create({ model, ...REQUEST }).withResponse();
    return { message: data, header: response.headers.get(COST_HEADER) };
  }

  /** A streamed message: the usage of message_start and message_delta, and the cost header (none). */
  async function stream(model: string) {
    const { data, response } = await client.messages.create({ model, ...REQUEST, stream: true }).withResponse();
    let startUsage: unknown;
    let deltaUsage: unknown;
    for await (const event of data) {
      if (event.type === 'message_start') startUsage = event.message.usage;
      if (event.type === 'message_delta') deltaUsage = event.usage;
    }
    return { startUsage, deltaUsage, header: response.headers.get(COST_HEADER) };
  }

  describe('passed through to an anthropic-type model', () => {
    it('non-streamed: the upstream usage as sent; 5-minute and 1-hour writes priced apart in the header and the report', async () => {
      fixture.anthropic.reply({ type: 'json', body: messageBody([{ type: 'text', text: 'Hi' }], 'end_turn', ANTHROPIC_USAGE) });
      const { message, header } = await create('claude-chat');
      expect(message.usage).toEqual({ ...ANTHROPIC_USAGE, service_tier: 'standard' });
      expect(ANTHROPIC_COST).toBe(2_745_000_000_000n);
      expect(header).toBe('0.002745');
      expect(await modelReport(fixture.gateway, fixture.accountId, 1)).toEqual([reportRow('claude-chat', ANTHROPIC_COST, ANTHROPIC_ROW)]);
    });

    it('streamed: message_start and message_delta as sent, no cost header, the same report', async () => {
      fixture.anthropic.reply({ type: 'sse', events: anthropicStream(ANTHROPIC_USAGE) });
      const { startUsage, deltaUsage, header } = await stream('claude-chat');
      expect(startUsage).toMatchObject({ input_tokens: 100, cache_read_input_tokens: 400, cache_creation_input_tokens: 300 });
      expect(deltaUsage).toEqual({ output_tokens: 50 });
      expect(header).toBeNull();
      expect(await modelReport(fixture.gateway, fixture.accountId, 1)).toEqual([reportRow('claude-chat', ANTHROPIC_COST, ANTHROPIC_ROW)]);
    });

    it('a message_delta repeating the cumulative input and cache counts is not counted twice', async () => {
      const { cache_creation: _, ...cumulative } = ANTHROPIC_USAGE;
      const events = anthropicStream(ANTHROPIC_USAGE).map((event) =>
        typeof event === 'object' && event.type === 'message_delta' ? { ...event, usage: cumulative } : event,
      );
      fixture.anthropic.reply({ type: 'sse', events });
      const { deltaUsage } = await stream('claude-chat');
      expect(deltaUsage).toEqual(cumulative);
      expect(await modelReport(fixture.gateway, fixture.accountId, 1)).toEqual([reportRow('claude-chat', ANTHROPIC_COST, ANTHROPIC_ROW)]);
    });

    it('a prompt over the long-context threshold prices every token of the request at the long-context rates', async () => {
      // 701 + 100 read + 200 written (5 min): 1,001 prompt tokens > 1,000.
      const usage = { input_tokens: 701, cache_read_input_tokens: 100, cache_creation_input_tokens: 200, output_tokens: 10 };
      fixture.anthropic.reply({ type: 'json', body: messageBody([{ type: 'text', text: 'Hi' }], 'end_turn', usage) });
      const { header } = await create('claude-chat');
      const cost = 701n * 6n * FEMTO + (100n * 6n * FEMTO) / 10n + (200n * 75n * FEMTO) / 10n + (10n * 225n * FEMTO) / 10n;
      expect(cost).toBe(5_991_000_000_000n);
      expect(header).toBe('0.005991');
      expect(await modelReport(fixture.gateway, fixture.accountId, 1)).toEqual([
        reportRow('claude-chat', cost, { prompt_tokens: 1001, completion_tokens: 10, cached_tokens: 100, cache_write_tokens: 200 }),
      ]);
    });
  });

  describe.each(
    [
      { type: 'openai' as const, usage: OPENAI_MESSAGES_USAGE, what: 'input_tokens without the cached tokens, cache_read_input_tokens' },
      {
        type: 'gemini' as const,
        usage: GEMINI_MESSAGES_USAGE,
        what: 'cached content as cache_read_input_tokens, thinking in output_tokens',
      },
    ].map((row) => [row.type, row] as const),
  )('translated to a model of type %s', (_type, { type, usage, what }) => {
    const path = COST_PATHS[type];

    it(`non-streamed: ${what}, cost in the header and the report`, async () => {
      path.reply(fixture);
      const { message, header } = await create(path.model);
      expect(message.usage).toEqual(usage);
      expect(header).toBe(path.costText);
      expect(await modelReport(fixture.gateway, fixture.accountId, 1)).toEqual([reportRow(path.model, path.cost, path.row)]);
    });

    it('streamed: message_delta carries the same usage, no cost header, the same report', async () => {
      path.streamReply(fixture);
      const { deltaUsage, header } = await stream(path.model);
      expect(deltaUsage).toEqual(usage);
      expect(header).toBeNull();
      expect(await modelReport(fixture.gateway, fixture.accountId, 1)).toEqual([reportRow(path.model, path.cost, path.row)]);
    });
  });

  describe('translated to an openai-type model', () => {
    it('a prompt over the long-context threshold: the long-context rates, in the header and the report', async () => {
      fixture.openai.reply({
        type: 'json',
        body: openAiChatBody(OPENAI_LONG_CONTEXT_USAGE),
      });
      const { message, header } = await create('oai-chat');
      expect(message.usage).toEqual({ input_tokens: 1000, output_tokens: 10, cache_read_input_tokens: 1, cache_creation_input_tokens: 0 });
      // 1,000 x 6 + 1 x 0.6 + 10 x 22.5 = 6,225.6 USD per million.
      const cost = 1000n * 6n * FEMTO + (1n * 6n * FEMTO) / 10n + (10n * 225n * FEMTO) / 10n;
      expect(header).toBe('0.0062256');
      expect(await modelReport(fixture.gateway, fixture.accountId, 1)).toEqual([
        reportRow('oai-chat', cost, { prompt_tokens: 1001, completion_tokens: 10, cached_tokens: 1 }),
      ]);
    });
  });

  it('the report sums the three paths: tokens, breakdown and spend of the key', async () => {
    COST_PATHS.anthropic.reply(fixture);
    COST_PATHS.openai.streamReply(fixture);
    COST_PATHS.gemini.reply(fixture);
    await create('claude-chat');
    await stream('oai-chat');
    await create('gemini-chat');
    await modelReport(fixture.gateway, fixture.accountId, 3);
    expect(await keyTotals(fixture.gateway, fixture.accountId)).toEqual({ admin: ONE_OF_EACH_TOTAL, public: ONE_OF_EACH_PUBLIC_TOTAL });
  });
});
