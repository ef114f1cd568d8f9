import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { parsePrometheusText, sampleValue } from '../helpers/prometheus-text';
import { BASE_TEST_CONFIG, startTestGateway, type TestGateway } from '../helpers/test-gateway';

/**
 * docs/usage-durability.md, `usage.durability: redis_stream`: a call's usage XADD goes in the
 * same Redis round trip (one MULTI) as its rate-limit settlement, as Redis sees it (MONITOR);
 * GET /metrics reports the stream's gauges.
 */
const redisUrl = process.env.GATEWAY_TEST_REDIS_URL;

describe.skipIf(!redisUrl)('usage.durability redis_stream', () => {
  let test: TestGateway | null = null;
  let monitor: Awaited<ReturnType<Redis['monitor']>> | null = null;
  afterEach(async () => {
    monitor?.disconnect();
    await test?.close();
    test = null;
  });

  it('sends the XADD of a finished call and its bucket adjust in one MULTI', async () => {
    const prefix = `mg:test:${randomBytes(6).toString('hex')}:usage:`;
    test = await startTestGateway({ configYaml: `${BASE_TEST_CONFIG}\nusage: { durability: redis_stream, stream_prefix: "${prefix}" }\n` });
    const { key } = await test.createKey(await test.createAccount());

    const client = new Redis(redisUrl as string);
    monitor = await client.monitor();
    client.disconnect();
    const commands: Array<{ args: string[]; source: string }> = [];
    monitor.on('monitor', (_time: string, args: string[], source: string) => commands.push({ args, source }));

    const reply = await test.http
      .post('/v1/chat/completions')
      .set('authorization', `Bearer ${key}`)
      .send({ model: 'mock-chat', max_tokens: 500, messages: [{ role: 'user', content: 'hello there' }] });
    expect(reply.status).toBe(200);
    // The reply waited for the XADD; the MONITOR feed may trail it a little.
    await expect.poll(() => commands.some(({ args }) => args[0]?.toUpperCase() === 'EXEC'), { timeout: 5_000 }).toBe(true);

    // The commands of the gateway's connection that wrote the XADD (the Redis is shared with other tests).
    const stream = `${prefix}stream`;
    const gateway = commands.find(({ args }) => args[0]?.toUpperCase() === 'XADD' && args[1] === stream)?.source;
    expect(gateway).toBeDefined();
    const sent = commands.filter(({ source }) => source === gateway).map(({ args }) => args.map((arg) => arg.toUpperCase()));
    const transactions: string[][][] = [];
    let open: string[][] | null = null;
    for (const args of sent) {
      if (args[0] === 'MULTI') open = [];
      else if (args[0] === 'EXEC' && open) {
        transactions.push(open);
        open = null;
      } else open?.push(args);
    }
    const withXadd = transactions.find((commands) => commands.some((args) => args[0] === 'XADD' && args[1] === stream.toUpperCase()));
    expect(withXadd).toBeDefined();
    // The settlement: the bucket adjust script (max_tokens was reserved, far more than used).
    expect(withXadd?.some((args) => args[0] === 'EVALSHA' || args[0] === 'EVAL')).toBe(true);
    // Not also sent on its own.
    const evalsOutside = sent.filter((args) => args[0] === 'EVALSHA' || args[0] === 'EVAL').length;
    const evalsInside = transactions.flat().filter((args) => args[0] === 'EVALSHA' || args[0] === 'EVAL').length;
    expect(evalsOutside - evalsInside).toBe(1); // the reservation (take) before the call
  });
  it('reports the stream in GET /metrics: entries waiting, pending, bytes, calls in flight, events stored', async () => {
    const prefix = `mg:test:${randomBytes(6).toString('hex')}:usage:`;
    test = await startTestGateway({ configYaml: `${BASE_TEST_CONFIG}\nusage: { durability: redis_stream, stream_prefix: "${prefix}" }\n` });
    const account = await test.createAccount();
    const { key } = await test.createKey(account);
    for (let index = 0; index < 3; index++) {
      const reply = await test.http
        .post('/v1/chat/completions')
        .set('authorization', `Bearer ${key}`)
        .send({ model: 'mock-chat', messages: [{ role: 'user', content: `hello ${index}` }] });
      expect(reply.status).toBe(200);
    }
    const metrics = async () => parsePrometheusText((await (test as TestGateway).http.get('/metrics')).text);
    // Scrapes share one sample for a second: polled until the consumer stored all three and
    // deleted them from the stream (it deletes them after storing them).
    await expect
      .poll(
        async () => {
          const sample = await metrics();
          return [sampleValue(sample, 'gateway_usage_stream_stored_events'), sampleValue(sample, 'gateway_usage_stream_length')];
        },
        { timeout: 10_000, interval: 300 },
      )
      .toEqual([3, 0]);
    const sample = await metrics();
    expect(sampleValue(sample, 'gateway_usage_stream_pending_entries')).toBe(0);
    expect(sampleValue(sample, 'gateway_usage_stream_in_flight_calls')).toBe(0);
    expect(sampleValue(sample, 'gateway_usage_stream_bytes')).toBeGreaterThan(0);
    expect(await test.store.countUsageEvents({ accountId: account })).toBe(3);
  });
});
