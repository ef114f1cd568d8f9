import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createStore } from '../../server/db/create-store';
import { migrate } from '../../server/db/migrate';
import type { Store } from '../../server/db/types';
import { rawQuery, type TestDatabase } from '../db/databases';
import { runCli, type ServeProcess, spawnServe, waitForStatus } from '../helpers/serve-process';
import { createTestDatabase, mockChatConfig, startTestGateway, type TestGateway } from '../helpers/test-gateway';
import { exactReport, REPORT_TEST_CONFIG, TestClock } from './usage-http-helpers';

/**
 * Usage is never lost on the way to the database (docs/usage-durability.md): not when the
 * server is stopped with SIGTERM while requests are in flight, and not when the database is
 * down for a while. Runs on SQLite, or on Postgres with GATEWAY_TEST_DB=postgres.
 */

const IN_FLIGHT_REQUESTS = 50;
/** Long enough that every request is surely inside the server when SIGTERM arrives. */
const MOCK_LATENCY_MS = 1_500;

const DRAIN_CONFIG = mockChatConfig({
  mockOptions: `{ latency_ms: ${MOCK_LATENCY_MS} }`,
  sections: ['limits: { default_rpm: 100000, default_tpm: 100000000 }'],
});

describe('SIGTERM drains in-flight requests and their usage', () => {
  let directory: string;
  let database: TestDatabase;
  let server: ServeProcess | null = null;

  beforeAll(async () => {
    directory = mkdtempSync(path.join(tmpdir(), 'gw-drain-'));
    database = await createTestDatabase();
  });
  afterAll(async () => {
    server?.kill();
    await database?.drop();
    rmSync(directory, { recursive: true, force: true });
  });

  it(`${IN_FLIGHT_REQUESTS} requests in flight at SIGTERM all answer 200 and all are recorded; exit code 0`, async () => {
    const configPath = path.join(directory, 'gateway.yaml');
    writeFileSync(configPath, DRAIN_CONFIG);
    const env = { GATEWAY_CONFIG: configPath, DATABASE_URL: database.url };
    const account = runCli(env, ['accounts', 'create', '--name', 'drain']) as { id: string };
    const created = runCli(env, ['keys', 'create', '--account', account.id, '--name', 'k']) as { key: string };

    server = await spawnServe(env);
    await waitForStatus(server, '/healthz');
    const { baseUrl, child } = server;

    const chatOnce = async (index: number) => {
      const response = await fetch(`${baseUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${created.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'mock-chat', messages: [{ role: 'user', content: `request ${index}` }] }),
      });
      const body = (await response.json()) as { usage?: { total_tokens: number } };
      return { status: response.status, answeredAt: Date.now(), body };
    };

    // One request first, so the server has loaded everything before the burst.
    expect((await chatOnce(-1)).status).toBe(200);

    const inFlight = Array.from({ length: IN_FLIGHT_REQUESTS }, (_, index) =>
      chatOnce(index).catch((error: unknown) => ({ status: -1, answeredAt: Date.now(), body: { error: String(error) } })),
    );
    await new Promise((resolve) => setTimeout(resolve, MOCK_LATENCY_MS / 3));
    const signalledAt = Date.now();
    child.kill('SIGTERM');
    const results = await Promise.all(inFlight);
    const { code, signal } = await server.exited;
    const exitMs = Date.now() - signalledAt;

    expect({ code, signal }, server.output()).toEqual({ code: 0, signal: null });
    // Every request was still running when the signal came, and finished normally.
    expect(results.every((result) => result.answeredAt >= signalledAt)).toBe(true);
    expect(results.map((result) => result.status)).toEqual(Array.from({ length: IN_FLIGHT_REQUESTS }, () => 200));
    // The keep-alive connections of the answered requests must not hold the exit for the 15 s request drain.
    expect(exitMs).toBeLessThan(MOCK_LATENCY_MS + 5_000);

    const store = await createStore(database.url);
    try {
      const answered = results.filter((result) => result.status === 200).length + 1;
      expect(await store.countUsageEvents({ accountId: account.id })).toBe(answered);
      const statuses = await rawQuery<{ status: number | bigint; events: number | bigint }>(
        database.url,
        'SELECT "status", COUNT(*) AS "events" FROM "usage_events" GROUP BY "status"',
      );
      expect(statuses.map((row) => [Number(row.status), Number(row.events)])).toEqual([[200, answered]]);
      const [rollup] = await rawQuery<{ requests: number | bigint }>(
        database.url,
        'SELECT SUM("requests") AS "requests" FROM "usage_daily"',
      );
      expect(Number(rollup?.requests)).toBe(answered);
    } finally {
      await store.close();
    }
  }, 120_000);
});

/** A Store that refuses usage writes while `down` is set, as a database outage does. */
function storeWithOutage(inner: Store): { store: Store; state: { down: boolean; refusedWrites: number } } {
  const state = { down: false, refusedWrites: 0 };
  const store: Store = {
    ...inner,
    async recordUsage(events) {
      if (state.down) {
        state.refusedWrites += 1;
        throw new Error('connection refused (test outage)');
      }
      await inner.recordUsage(events);
    },
  };
  return { store, state };
}

describe('a database outage loses no usage once the database is back', () => {
  const clock = new TestClock('2026-09-30T15:59:00.000Z');
  let database: TestDatabase;
  let inner: Store;
  let gw: TestGateway;
  let outage: ReturnType<typeof storeWithOutage>;

  beforeAll(async () => {
    database = await createTestDatabase();
    await migrate(database.url);
    inner = await createStore(database.url);
    outage = storeWithOutage(inner);
    gw = await startTestGateway({ configYaml: REPORT_TEST_CONFIG, now: clock.now, databaseUrl: database.url, store: outage.store });
  });
  afterEach(() => {
    outage.state.down = false;
  });
  afterAll(async () => {
    await gw?.close();
    await inner?.close();
    await database?.drop();
  });

  it('requests made while usage writes fail are each in the report exactly once afterwards', async () => {
    const accountId = await gw.createAccount();
    const { key } = await gw.createKey(accountId, { name: 'through-outage' });
    const usageKey = await gw.createUsageKey(accountId);
    const recorder = gw.gateway.recorder;
    if (!recorder) throw new Error('the test gateway has no recorder');

    const send = async (count: number, stream: boolean) => {
      const responses = await Promise.all(
        Array.from({ length: count }, (_, index) =>
          gw.http
            .post('/v1/chat/completions')
            .set('authorization', `Bearer ${key}`)
            .send({ model: 'mock-text', stream, messages: [{ role: 'user', content: `outage ${index}` }] }),
        ),
      );
      for (const response of responses) expect(response.status).toBe(200);
    };

    clock.set('2026-09-30T15:59:00.000Z');
    await send(10, false);
    await recorder.flush();

    outage.state.down = true;
    await send(30, false); // 2026-09-30 (Shanghai)
    await expect(recorder.flush()).rejects.toThrow('test outage');
    clock.set('2026-09-30T16:00:00.000Z');
    await send(25, false); // 2026-10-01
    await send(15, true);
    await expect(recorder.flush()).rejects.toThrow('test outage');
    // Let the background retries fail a few more times too.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(recorder.stats()).toMatchObject({ failing: true, buffered: 70, dropped: 0, lost: 0 });
    expect(outage.state.refusedWrites).toBeGreaterThanOrEqual(2);
    expect(await inner.countUsageEvents({ accountId })).toBe(10);

    outage.state.down = false;
    await recorder.flush();
    expect(recorder.stats()).toMatchObject({ failing: false, buffered: 0, dropped: 0, lost: 0 });

    expect(await inner.countUsageEvents({ accountId })).toBe(80);
    const [distinct] = await rawQuery<{ requests: number | bigint }>(
      database.url,
      `SELECT COUNT(DISTINCT "request_id") AS "requests" FROM "usage_events" WHERE "account_id" = '${accountId}'`,
    );
    expect(Number(distinct?.requests)).toBe(80);
    const body = await exactReport(gw, usageKey, { start: '2026-09-30', end: '2026-10-01' });
    expect(body.keys[0]?.daily.map((row) => [row.date, row.requests])).toEqual([
      ['2026-09-30', 40],
      ['2026-10-01', 40],
    ]);
    expect(body.keys[0]?.total.requests).toBe(80);
  });
});
