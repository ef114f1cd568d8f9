import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawQuery } from '../db/databases';
import { BASE_TEST_CONFIG, startTestGateway, type TestGateway } from '../helpers/test-gateway';
import {
  chat,
  costFemto,
  decimalToNano,
  exactReport,
  femtoToNano,
  MOCK_CHAT_PRICES,
  MOCK_TEXT_PRICES,
  TestClock,
} from './usage-http-helpers';

/**
 * Spend is exact (docs/usage-report.md): integer sums, rounded once per day row to nano-dollars,
 * totals equal to the rows to the last digit. Streamed, cancelled and SDK-made requests are
 * all counted, with the tokens the client saw.
 */

/** REPORT_TEST_CONFIG plus a slow streaming mock, so a stream is still running when the test acts. */
const SPEND_TEST_CONFIG = `${BASE_TEST_CONFIG.replace('providers:\n', 'providers:\n  slow: { type: mock, options: { chunk_delay_ms: 150 } }\n')}
  - id: mock-slow
    provider: slow
    capabilities: [chat]
    context_window: 8000
    pricing: { input_per_million: 0.0375, output_per_million: 0.15 }
limits: { default_rpm: 1000000, default_tpm: 1000000000, usage_key_rpm: 100000, usage_ip_rpm: 100000 }
`;

const clock = new TestClock('2026-05-01T00:00:00.000Z');
let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({ configYaml: SPEND_TEST_CONFIG, now: clock.now });
});
afterAll(() => gw?.close());

async function newAccount(keyNames: string[]): Promise<{ accountId: string; keys: string[]; usageKey: string }> {
  const accountId = await gw.createAccount();
  const keys: string[] = [];
  for (const name of keyNames) keys.push((await gw.createKey(accountId, { name })).key);
  return { accountId, keys, usageKey: await gw.createUsageKey(accountId) };
}

/** How JSON.stringify writes the number with this many nano-dollars: the server's text must be exactly this. */
function jsonTextOfNano(nano: bigint): string {
  const whole = nano / 1_000_000_000n;
  const fraction = (nano % 1_000_000_000n).toString().padStart(9, '0');
  return JSON.stringify(Number(`${whole}.${fraction}`));
}

/** Waits until the account has `count` usage events in the database (a cancelled stream records asynchronously). */
async function waitForEvents(accountId: string, count: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    await gw.gateway.recorder?.flush();
    const stored = await gw.store.countUsageEvents({ accountId });
    if (stored >= count) {
      expect(stored).toBe(count);
      return;
    }
    if (Date.now() > deadline) throw new Error(`expected ${count} usage events, found ${stored}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

interface StreamResult {
  text: string;
  usage: { prompt_tokens: number; completion_tokens: number } | null;
}

/** Reads `data:` events of an SSE body; lines are split on "\n" as they arrive. */
async function readStream(response: Response, onContent?: (received: number) => void): Promise<StreamResult> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  let text = '';
  let usage: StreamResult['usage'] = null;
  let contentChunks = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffered += decoder.decode(value, { stream: true });
    let newline = buffered.indexOf('\n');
    while (newline !== -1) {
      const line = buffered.slice(0, newline).trim();
      buffered = buffered.slice(newline + 1);
      newline = buffered.indexOf('\n');
      if (!line.startsWith('data:') || line === 'data: [DONE]') continue;
      const chunk = JSON.parse(line.slice(5)) as {
        choices: Array<{ delta: { content?: string } }>;
        usage?: { prompt_tokens: number; completion_tokens: number } | null;
      };
      if (chunk.usage) usage = chunk.usage;
      for (const choice of chunk.choices) {
        if (choice.delta.content) {
          text += choice.delta.content;
          contentChunks += 1;
          onContent?.(contentChunks);
        }
      }
    }
  }
  return { text, usage };
}

function streamRequest(key: string, body: Record<string, unknown>, signal?: AbortSignal): Promise<Response> {
  return fetch(`${gw.baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, stream: true }),
    ...(signal ? { signal } : {}),
  });
}

describe('exact spend', () => {
  it('1,000 requests at prices floats drift on: every day row and the totals to the last digit', async () => {
    const { keys, usageKey } = await newAccount(['first', 'second']);
    // Three days, the first and last request of each on its exact boundary.
    const days = [
      { date: '2026-05-01', from: Date.parse('2026-04-30T16:00:00.000Z') },
      { date: '2026-05-02', from: Date.parse('2026-05-01T16:00:00.000Z') },
      { date: '2026-05-03', from: Date.parse('2026-05-02T16:00:00.000Z') },
    ];
    const perDay = [334, 333, 333];
    const expected = new Map<string, { femto: bigint; requests: number; prompt: number; completion: number }>();
    let floatSum = 0;
    let sent = 0;
    for (const [dayIndex, day] of days.entries()) {
      const count = perDay[dayIndex] ?? 0;
      for (let start = 0; start < count; start += 25) {
        const batch = Array.from({ length: Math.min(25, count - start) }, (_, offset) => start + offset);
        // One instant per batch: the last batch of a day sits on the day's last millisecond.
        clock.set(new Date(start + 25 >= count ? day.from + 86_400_000 - 1 : day.from + start * 1000).toISOString());
        const responses = await Promise.all(
          batch.map((index) => {
            const keyIndex = (sent + index) % 2;
            const words = Array.from({ length: 1 + ((index * 7) % 23) }, (_, word) => `w${(index * 31 + word) % 97}`).join(' ');
            return chat(gw, keys[keyIndex] ?? '', { model: 'mock-text', messages: [{ role: 'user', content: words }] }).then(
              (response) => ({
                keyIndex,
                response,
              }),
            );
          }),
        );
        for (const { keyIndex, response } of responses) {
          expect(response.status).toBe(200);
          const usage = response.body.usage as { prompt_tokens: number; completion_tokens: number };
          const mapKey = `${keyIndex} ${day.date}`;
          const total = expected.get(mapKey) ?? { femto: 0n, requests: 0, prompt: 0, completion: 0 };
          total.femto += costFemto(MOCK_TEXT_PRICES, usage.prompt_tokens, usage.completion_tokens);
          total.requests += 1;
          total.prompt += usage.prompt_tokens;
          total.completion += usage.completion_tokens;
          expected.set(mapKey, total);
          floatSum += (usage.prompt_tokens * 0.0375) / 1e6 + (usage.completion_tokens * 0.15) / 1e6;
        }
      }
      sent += count;
    }

    const body = await exactReport(gw, usageKey, { start: '2026-05-01', end: '2026-05-03' });
    expect(body.keys.map((entry) => entry.name)).toEqual(['first', 'second']);
    let requests = 0;
    let reportedNano = 0n;
    for (const [keyIndex, entry] of body.keys.entries()) {
      expect(entry.daily.map((row) => row.date)).toEqual(days.map((day) => day.date));
      let keyNano = 0n;
      for (const row of entry.daily) {
        const want = expected.get(`${keyIndex} ${row.date}`);
        const wantNano = femtoToNano(want?.femto ?? -1n);
        expect({ spend: row.spend_usd, requests: row.requests, prompt: row.prompt_tokens, completion: row.completion_tokens }).toEqual({
          spend: jsonTextOfNano(wantNano),
          requests: want?.requests,
          prompt: want?.prompt,
          completion: want?.completion,
        });
        expect(decimalToNano(row.spend_usd)).toBe(wantNano);
        keyNano += wantNano;
        requests += row.requests;
      }
      // Totals are the sum of the day rows, to the last digit.
      expect(entry.total.spend_usd).toBe(jsonTextOfNano(keyNano));
      expect(decimalToNano(entry.total.spend_usd)).toBe(entry.daily.reduce((sum, row) => sum + decimalToNano(row.spend_usd), 0n));
      expect(entry.total.requests).toBe(entry.daily.reduce((sum, row) => sum + row.requests, 0));
      expect(entry.total.prompt_tokens).toBe(entry.daily.reduce((sum, row) => sum + row.prompt_tokens, 0));
      expect(entry.total.completion_tokens).toBe(entry.daily.reduce((sum, row) => sum + row.completion_tokens, 0));
      reportedNano += keyNano;
    }
    expect(requests).toBe(1000);
    // The exact sum is what a float accumulation only approximates.
    expect(Math.abs(Number(reportedNano) / 1e9 - floatSum)).toBeLessThan(1e-8);
  });
});

describe('streamed and cancelled requests', () => {
  it('a stream counts with the tokens of its usage chunk, also when the client did not ask to see them', async () => {
    const { accountId, keys, usageKey } = await newAccount(['streams']);
    const key = keys[0] ?? '';
    clock.set('2026-05-10T01:00:00.000Z');
    const withUsage = await readStream(
      await streamRequest(key, {
        model: 'mock-chat',
        messages: [{ role: 'user', content: 'stream me please' }],
        stream_options: { include_usage: true },
      }),
    );
    const withoutUsage = await readStream(
      await streamRequest(key, { model: 'mock-chat', messages: [{ role: 'user', content: 'stream me please' }] }),
    );
    expect(withUsage.usage).not.toBeNull();
    expect(withoutUsage.usage).toBeNull();
    expect(withoutUsage.text).toBe(withUsage.text);
    await waitForEvents(accountId, 2);

    const seen = withUsage.usage ?? { prompt_tokens: 0, completion_tokens: 0 };
    const body = await exactReport(gw, usageKey, { start: '2026-05-10', end: '2026-05-10' });
    // The same request twice: the unseen usage equals the seen one.
    expect(body.keys[0]?.total).toMatchObject({
      requests: 2,
      prompt_tokens: 2 * seen.prompt_tokens,
      completion_tokens: 2 * seen.completion_tokens,
    });
    expect(decimalToNano(body.keys[0]?.total.spend_usd ?? '')).toBe(
      femtoToNano(2n * costFemto(MOCK_CHAT_PRICES, seen.prompt_tokens, seen.completion_tokens)),
    );
  });

  it('a stream the client aborts still counts as a request (status 499 in the event)', async () => {
    const { accountId, keys, usageKey } = await newAccount(['aborted']);
    clock.set('2026-05-11T01:00:00.000Z');
    const controller = new AbortController();
    const response = await streamRequest(
      keys[0] ?? '',
      { model: 'mock-slow', messages: [{ role: 'user', content: 'one two three four five six seven eight nine ten' }] },
      controller.signal,
    );
    expect(response.status).toBe(200);
    await expect(readStream(response, () => controller.abort())).rejects.toThrow();
    await waitForEvents(accountId, 1);

    const body = await exactReport(gw, usageKey, { start: '2026-05-11', end: '2026-05-11' });
    expect(body.keys[0]?.total.requests).toBe(1);
    expect(body.keys[0]?.daily.map((row) => [row.date, row.requests])).toEqual([['2026-05-11', 1]]);
    const rows = await rawQuery<{ status: number | bigint; stream: unknown }>(
      gw.databaseUrl,
      `SELECT "status", "stream" FROM "usage_events" WHERE "account_id" = '${accountId}'`,
    );
    expect(rows.map((row) => Number(row.status))).toEqual([499]);
    expect([true, 1, 1n]).toContain(rows[0]?.stream);
  });

  it('a stream received before midnight and finished after it counts on the day it was received', async () => {
    const { accountId, keys, usageKey } = await newAccount(['midnight']);
    clock.set('2026-05-12T15:59:59.999Z');
    const response = await streamRequest(keys[0] ?? '', {
      model: 'mock-slow',
      messages: [{ role: 'user', content: 'across midnight' }],
      stream_options: { include_usage: true },
    });
    const result = await readStream(response, (received) => {
      if (received === 1) clock.set('2026-05-12T16:00:05.000Z');
    });
    expect(result.usage).not.toBeNull();
    await waitForEvents(accountId, 1);
    const body = await exactReport(gw, usageKey, { start: '2026-05-12', end: '2026-05-13' });
    expect(body.keys[0]?.daily.map((row) => [row.date, row.requests, row.prompt_tokens, row.completion_tokens])).toEqual([
      ['2026-05-12', 1, result.usage?.prompt_tokens, result.usage?.completion_tokens],
    ]);
  });
});

describe('through the official openai client', () => {
  it('records what the client saw, streamed and not', async () => {
    const { accountId, keys, usageKey } = await newAccount(['sdk']);
    const client = new OpenAI({ apiKey: keys[0] ?? '', baseURL: `${gw.baseUrl}/v1`, maxRetries: 0 });
    clock.set('2026-05-20T08:00:00.000Z');
    const seen: Array<{ prompt_tokens: number; completion_tokens: number }> = [];
    for (const content of ['hello', 'a somewhat longer question about usage accounting', 'third']) {
      const completion = await client.chat.completions.create({ model: 'mock-chat', messages: [{ role: 'user', content }] });
      expect(completion.usage).toBeDefined();
      seen.push({ prompt_tokens: completion.usage?.prompt_tokens ?? -1, completion_tokens: completion.usage?.completion_tokens ?? -1 });
    }
    for (const content of ['stream one', 'stream two, a little longer than one']) {
      const stream = await client.chat.completions.create({
        model: 'mock-chat',
        messages: [{ role: 'user', content }],
        stream: true,
        stream_options: { include_usage: true },
      });
      let usage: { prompt_tokens: number; completion_tokens: number } | null = null;
      let text = '';
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta.content ?? '';
        if (chunk.usage) usage = { prompt_tokens: chunk.usage.prompt_tokens, completion_tokens: chunk.usage.completion_tokens };
      }
      expect(text).toBe(`Mock reply to: ${content}`);
      expect(usage).not.toBeNull();
      if (usage) seen.push(usage);
    }
    await waitForEvents(accountId, seen.length);

    const body = await exactReport(gw, usageKey, { start: '2026-05-20', end: '2026-05-20' });
    const prompt = seen.reduce((sum, usage) => sum + usage.prompt_tokens, 0);
    const completion = seen.reduce((sum, usage) => sum + usage.completion_tokens, 0);
    const femto = seen.reduce((sum, usage) => sum + costFemto(MOCK_CHAT_PRICES, usage.prompt_tokens, usage.completion_tokens), 0n);
    expect(body.keys[0]?.total).toMatchObject({ requests: 5, prompt_tokens: prompt, completion_tokens: completion });
    expect(decimalToNano(body.keys[0]?.total.spend_usd ?? '')).toBe(femtoToNano(femto));
    expect(body.keys[0]?.daily).toHaveLength(1);
  });
});
