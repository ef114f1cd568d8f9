import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresDatabase, createSqliteDatabase, isPostgresAvailable, type TestDatabase } from '../db/databases';
import { runCli, spawnServe, type ServeProcess, waitForStatus } from '../helpers/serve-process';
import { mockChatConfig } from '../helpers/test-gateway';
import { createTestRedis, isRedisReachable, redisUrl } from '../rate-limit/redis-test-client';

/**
 * Usage that survives a crash (docs/usage-durability.md), as an operator would see it: real
 * gateway processes, started from one checkout with default settings, under concurrent chat
 * and streaming load are SIGKILLed at random moments, restarted on the same disk (or not: a
 * slot nobody restarts is adopted by another instance), and in the end every request answered
 * 200 has exactly one usage event, every other stored event belongs to a request cut short by
 * a kill (recorded once, mostly as 499 interrupted), and no request is counted twice.
 *
 * CHAOS_ROUNDS sets the number of kills (3 here, more with `npm run chaos`).
 */
const ROUNDS = Number(process.env.CHAOS_ROUNDS ?? 3);
const CLIENTS = 16;
const config = (usage: string) =>
  mockChatConfig({
    mockOptions: '{ chunk_delay_ms: 30, chunks: 8 }',
    sections: [
      'limits: { default_rpm: 10000000, default_tpm: 10000000000, max_streams_per_key: 1000 }',
      `usage: { flush_interval_ms: 200, journal_fsync_ms: 50${usage} }`,
    ],
  });

interface Tally {
  /** Request ids the client sent. */
  sent: Set<string>;
  /** Request ids whose whole 200 reply arrived (a JSON body, or a stream up to [DONE]). */
  answered: Set<string>;
}

interface StoredEvent {
  requestId: string;
  status: number;
  errorCode: string | null;
}

let nextRequest = 0;

async function oneRequest(baseUrl: string, key: string, tally: Tally): Promise<boolean> {
  const requestId = `chaos-${process.pid}-${nextRequest++}`;
  const stream = Math.random() < 0.5;
  tally.sent.add(requestId);
  try {
    const response = await fetch(`${baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-request-id': requestId },
      body: JSON.stringify({ model: 'mock-chat', messages: [{ role: 'user', content: 'one two three four five' }], stream }),
    });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`status ${response.status}: ${text}`);
    if (stream ? text.trimEnd().endsWith('data: [DONE]') : (JSON.parse(text) as { usage?: unknown }).usage !== undefined) {
      tally.answered.add(requestId);
    }
    return true;
  } catch (error) {
    // The server died under it (or is gone): this client stops for the round.
    if (error instanceof Error && error.message.startsWith('status ')) throw error;
    return false;
  }
}

/** CLIENTS loops against the servers until a request fails (the kill). */
function load(servers: ServeProcess[], key: string, tally: Tally): Promise<void> {
  return Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      const server = servers[client % servers.length] as ServeProcess;
      while (await oneRequest(server.baseUrl, key, tally));
    }),
  ).then(() => undefined);
}

async function storedEvents(database: TestDatabase): Promise<StoredEvent[]> {
  const sql = 'SELECT request_id AS "requestId", status, error_code AS "errorCode" FROM usage_events';
  if (database.url.startsWith('file:')) {
    const db = new Database(database.url.slice('file:'.length), { readonly: true });
    try {
      return db.prepare(sql).all() as StoredEvent[];
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    return (await client.query<StoredEvent>(sql)).rows;
  } finally {
    await client.end();
  }
}

/** redis_stream: how long a dead instance's entries and calls wait to be taken over. */
const CLAIM_IDLE_MS = 2_000;

interface ChaosRun {
  /** Instances started in the first round. */
  instances: number;
  extraEnv: Record<string, string>;
  /** Extra `usage:` settings of the configuration file. */
  usage?: string;
  /** Instances started again after the first round (default: all): the others never come back. */
  restarted?: number;
}

/** Segment files left in any journal slot under `directory`'s default journal folder. */
function leftSegments(directory: string): string[] {
  const journal = path.join(directory, 'data', 'usage-journal');
  if (!existsSync(journal)) return [];
  return readdirSync(journal).flatMap((slot) =>
    readdirSync(path.join(journal, slot))
      .filter((name) => name.startsWith('segment-'))
      .map((name) => `${slot}/${name}`),
  );
}

async function chaos(database: TestDatabase, run: ChaosRun) {
  const { instances, extraEnv, usage = '' } = run;
  const directory = mkdtempSync(path.join(tmpdir(), 'gw-chaos-'));
  writeFileSync(path.join(directory, 'gateway.yaml'), config(usage));
  // Default settings, as the README starts several instances from one checkout: no
  // USAGE_JOURNAL_DIR, so each process claims a free slot under <checkout>/data/usage-journal.
  const env = { GATEWAY_CONFIG: path.join(directory, 'gateway.yaml'), DATABASE_URL: database.url, USAGE_JOURNAL_DIR: '', ...extraEnv };
  const account = runCli(env, ['accounts', 'create', '--name', 'chaos'], { cwd: directory }) as { id: string };
  const { key } = runCli(env, ['keys', 'create', '--account', account.id, '--name', 'k'], { cwd: directory }) as { key: string };
  const tally: Tally = { sent: new Set(), answered: new Set() };
  const start = async (count: number) => {
    const servers = await Promise.all(Array.from({ length: count }, () => spawnServe(env, [], { cwd: directory })));
    await Promise.all(servers.map((server) => waitForStatus(server, '/readyz')));
    return servers;
  };
  const restarted = run.restarted ?? instances;
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const servers = await start(round === 0 ? instances : restarted);
      const running = load(servers, key, tally);
      await Promise.all(
        servers.map(async (server) => {
          await new Promise((resolve) => setTimeout(resolve, 300 + Math.random() * 1_200));
          server.child.kill('SIGKILL');
          await server.exited;
        }),
      );
      await running;
    }
    // The last start replays what the last kill left (a slot nobody restarts is adopted); then a clean stop.
    const servers = await start(restarted);
    // redis_stream: the killed instances' calls and entries are taken over once their heartbeats expire.
    if (usage.includes('redis_stream')) await new Promise((resolve) => setTimeout(resolve, CLAIM_IDLE_MS * 2 + 1_000));
    for (const server of servers) server.child.kill('SIGTERM');
    for (const server of servers) expect((await server.exited).code, server.output()).toBe(0);
    expect(leftSegments(directory)).toEqual([]);

    const events = await storedEvents(database);
    const byRequest = new Map<string, StoredEvent[]>();
    for (const event of events) byRequest.set(event.requestId, [...(byRequest.get(event.requestId) ?? []), event]);
    const twice = [...byRequest].filter(([, list]) => list.length > 1).map(([id]) => id);
    const unbilled = [...tally.answered].filter((id) => byRequest.get(id)?.[0]?.status !== 200);
    const phantom = [...byRequest.keys()].filter((id) => !tally.sent.has(id));
    const extra = events.filter((event) => !tally.answered.has(event.requestId));
    const interrupted = extra.filter((event) => event.status === 499 && event.errorCode === 'interrupted').length;
    console.info(
      `[chaos] ${instances} instance(s) (${restarted} restarted), ${ROUNDS} kills: ${tally.sent.size} sent, ${tally.answered.size} answered 200, ` +
        `${events.length} usage events (${interrupted} interrupted, ${extra.length - interrupted} other cut-short requests)`,
    );
    expect(twice).toEqual([]);
    expect(unbilled).toEqual([]);
    expect(phantom).toEqual([]);
    // Whatever else is stored belongs to a request a kill cut short.
    for (const event of extra) expect([200, 499]).toContain(event.status);
    expect(tally.answered.size).toBeGreaterThan(0);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

const postgresAndRedis = (await isPostgresAvailable()) && (await isRedisReachable());

describe('chaos: SIGKILL under load, then restart', () => {
  const databases: TestDatabase[] = [];
  afterAll(async () => {
    for (const database of databases) await database.drop();
  });

  it(
    `SQLite, one instance: every answered request billed once after ${ROUNDS} kills`,
    async () => {
      const database = createSqliteDatabase();
      databases.push(database);
      await chaos(database, { instances: 1, extraEnv: {} });
    },
    120_000 + ROUNDS * 20_000,
  );

  it.skipIf(!postgresAndRedis)(
    `Postgres + Redis, two instances from one checkout with default settings: every answered request billed once after ${ROUNDS} kills of both`,
    async () => {
      const database = await createPostgresDatabase();
      databases.push(database);
      await chaos(database, { instances: 2, extraEnv: { REDIS_URL: redisUrl } });
    },
    120_000 + ROUNDS * 20_000,
  );

  it.skipIf(!postgresAndRedis)(
    `Postgres + Redis, two instances, one never restarted after its kill: its slot adopted, every answered request billed once`,
    async () => {
      const database = await createPostgresDatabase();
      databases.push(database);
      await chaos(database, { instances: 2, restarted: 1, extraEnv: { REDIS_URL: redisUrl } });
    },
    120_000 + ROUNDS * 20_000,
  );

  it.skipIf(!postgresAndRedis)(
    `Postgres + Redis Stream, two instances without a disk: every answered request billed once after ${ROUNDS} kills`,
    async () => {
      const database = await createPostgresDatabase();
      databases.push(database);
      const prefix = `mg:test-usage:${randomUUID()}:`;
      const usage = `, durability: redis_stream, stream_claim_idle_ms: ${CLAIM_IDLE_MS}, stream_prefix: "${prefix}"`;
      try {
        await chaos(database, { instances: 2, extraEnv: { REDIS_URL: redisUrl }, usage });
      } finally {
        const redis = createTestRedis();
        redis.on('error', () => undefined);
        await redis.connect();
        const keys = await redis.keys(`${prefix}*`);
        if (keys.length > 0) await redis.del(...keys);
        redis.disconnect();
      }
    },
    120_000 + ROUNDS * 25_000,
  );
});
