import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { createStore } from '../../server/db/create-store';
import { migrate } from '../../server/db/migrate';
import type { Store } from '../../server/db/types';
import { BASE_TEST_CONFIG, createTestDatabase, startTestGateway, type TestGateway } from '../helpers/test-gateway';
import { parsePrometheusText, sampleValue } from '../helpers/prometheus-text';
import type { TestDatabase } from '../db/databases';

/**
 * docs/performance.md, "Back-pressure": a database that cannot keep up with the usage writes
 * shows in GET /metrics while the buffer is still small: the age of the oldest usage event not
 * yet stored grows with the write that holds it, and the time spent writing grows as fast as the
 * clock (its rate near 1: the writer busy all the time), before gateway_usage_buffered_events
 * does.
 */
describe('usage back-pressure in GET /metrics', () => {
  let gateway: TestGateway | undefined;
  let database: TestDatabase | undefined;
  let store: Store | undefined;
  afterEach(async () => {
    await gateway?.close();
    await store?.close();
    await database?.drop();
  });

  it('shows a held write as the oldest event ageing and the write time, with only its events buffered', async () => {
    database = await createTestDatabase();
    await migrate(database.url);
    const real = await createStore(database.url);
    store = real;
    // The database's writes hang until released: each arriving batch waits on `release`.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let writeArrived!: () => void;
    const arrived = new Promise<void>((resolve) => (writeArrived = resolve));
    const slowStore: Store = {
      ...real,
      recordUsage: async (events, requests) => {
        writeArrived();
        await released;
        return real.recordUsage(events, requests);
      },
    };
    gateway = await startTestGateway({
      databaseUrl: database.url,
      store: slowStore,
      configYaml: `${BASE_TEST_CONFIG}usage: { durability: memory, flush_interval_ms: 20 }\n`,
    });
    const metrics = async () => parsePrometheusText((await gateway!.http.get('/metrics').expect(200)).text);

    const accountId = await gateway.createAccount();
    const { key } = await gateway.createKey(accountId);
    for (let request = 0; request < 3; request += 1) expect((await gateway.chat(key)).status).toBe(200);
    await arrived;
    const heldFor = 50;
    await sleep(heldFor);

    const held = await metrics();
    expect(sampleValue(held, 'gateway_usage_buffered_events')).toBe(3);
    expect(sampleValue(held, 'gateway_usage_oldest_buffered_seconds')).toBeGreaterThanOrEqual(heldFor / 1000);
    expect(sampleValue(held, 'gateway_usage_written_events_total')).toBe(0);

    release();
    await gateway.gateway.recorder!.flush();
    const after = await metrics();
    expect(sampleValue(after, 'gateway_usage_buffered_events')).toBe(0);
    expect(sampleValue(after, 'gateway_usage_oldest_buffered_seconds')).toBe(0);
    expect(sampleValue(after, 'gateway_usage_written_events_total')).toBe(3);
    expect(sampleValue(after, 'gateway_usage_writes_total')).toBeGreaterThanOrEqual(1);
    // The write took at least as long as it was held: the writer was busy that whole time.
    expect(sampleValue(after, 'gateway_usage_write_seconds_total')).toBeGreaterThanOrEqual(heldFor / 1000);
  });
});
