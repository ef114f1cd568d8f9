import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createStore } from '../../server/db/create-store';
import { createPostgresDatabase, isPostgresAvailable, type TestDatabase } from '../db/databases';
import { parsePrometheusText, sampleValue } from '../helpers/prometheus-text';
import { logLines, runCli, spawnServe, type ServeProcess, waitForStatus } from '../helpers/serve-process';
import { createTestDatabase, mockChatConfig } from '../helpers/test-gateway';
import { isRedisReachable, redisUrl } from '../rate-limit/redis-test-client';

/**
 * The process level (docs/architecture.md): SIGTERM while streams are open lets
 * every stream finish and every usage event reach the database before exit 0; `serve
 * --workers N` runs N workers on one port behind one primary, answers /metrics for the
 * whole cluster, and drains every worker on SIGTERM.
 */
const STREAMS = 8;
const CHUNK_DELAY_MS = 100;
const CHUNKS = 10;
const CONFIG = mockChatConfig({
  mockOptions: `{ chunk_delay_ms: ${CHUNK_DELAY_MS}, chunks: ${CHUNKS} }`,
  sections: ['limits: { default_rpm: 100000, default_tpm: 100000000 }'],
});
const services = (await isPostgresAvailable()) && (await isRedisReachable());
if (!services) console.warn('[ops] Postgres or Redis unreachable: skipping the --workers tests (CI runs them).');

interface StreamResult {
  status: number;
  text: string;
  firstChunkAt: number;
  endedAt: number;
}

/** Opens a stream and resolves once its first chunk arrived; `done` resolves with the whole body. */
async function openStream(baseUrl: string, key: string): Promise<{ firstChunk: Promise<void>; done: Promise<StreamResult> }> {
  let markFirst: () => void = () => undefined;
  const firstChunk = new Promise<void>((resolve) => (markFirst = resolve));
  const done = (async () => {
    const response = await fetch(`${baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'mock-chat',
        messages: [{ role: 'user', content: 'one two three four five six seven eight nine ten' }],
        stream: true,
      }),
    });
    const reader = response.body!.getReader();
    let text = '';
    let firstChunkAt = 0;
    for (;;) {
      const { value, done: finished } = await reader.read();
      if (finished) break;
      text += Buffer.from(value).toString('utf8');
      if (firstChunkAt === 0 && text.includes('data: {')) {
        firstChunkAt = Date.now();
        markFirst();
      }
    }
    markFirst();
    return { status: response.status, text, firstChunkAt, endedAt: Date.now() };
  })();
  return { firstChunk, done };
}

describe('SIGTERM with streams open', () => {
  let directory: string;
  let database: TestDatabase;
  let server: ServeProcess | null = null;
  beforeAll(async () => {
    directory = mkdtempSync(path.join(tmpdir(), 'gw-shutdown-'));
    writeFileSync(path.join(directory, 'gateway.yaml'), CONFIG);
    database = await createTestDatabase();
  });
  afterAll(async () => {
    server?.kill();
    await database?.drop();
    rmSync(directory, { recursive: true, force: true });
  });

  it(`${STREAMS} streams open at SIGTERM all finish with [DONE], their usage is written, exit 0`, async () => {
    const env = { GATEWAY_CONFIG: path.join(directory, 'gateway.yaml'), DATABASE_URL: database.url };
    const account = runCli(env, ['accounts', 'create', '--name', 'shutdown']) as { id: string };
    const { key } = runCli(env, ['keys', 'create', '--account', account.id, '--name', 'k']) as { key: string };
    server = await spawnServe(env);
    await waitForStatus(server, '/readyz');

    const streams = await Promise.all(Array.from({ length: STREAMS }, () => openStream(server!.baseUrl, key)));
    await Promise.all(streams.map((stream) => stream.firstChunk));
    const signalledAt = Date.now();
    server.child.kill('SIGTERM');
    const results = await Promise.all(streams.map((stream) => stream.done));
    expect(await server.exited, server.output()).toEqual({ code: 0, signal: null });

    for (const result of results) {
      expect(result.status).toBe(200);
      expect(result.endedAt).toBeGreaterThan(signalledAt);
      expect(result.text.trimEnd().endsWith('data: [DONE]')).toBe(true);
      expect(result.text).not.toContain('"error"');
    }
    // No new connection once draining started.
    await expect(fetch(`${server.baseUrl}/healthz`)).rejects.toThrow();
    const store = await createStore(database.url);
    try {
      expect(await store.countUsageEvents({ accountId: account.id })).toBe(STREAMS);
    } finally {
      await store.close();
    }
  }, 60_000);
});

describe('serve --workers', () => {
  let directory: string;
  let server: ServeProcess | null = null;
  beforeAll(() => {
    directory = mkdtempSync(path.join(tmpdir(), 'gw-workers-'));
    writeFileSync(path.join(directory, 'gateway.yaml'), CONFIG);
  });
  afterEach(async () => {
    server?.kill();
    await server?.exited;
    server = null;
  });
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it('refuses several workers without REDIS_URL: the limits would not be shared', async () => {
    server = await spawnServe(
      { GATEWAY_CONFIG: path.join(directory, 'gateway.yaml'), DATABASE_URL: `file:${path.join(directory, 'refused.db')}` },
      ['--workers', '2'],
    );
    const { code } = await server.exited;
    expect(code).toBe(1);
    expect(server.output()).toMatch(/model-gateway: --workers 2 needs REDIS_URL/);
  });

  it.skipIf(!services)(
    'N workers share the port; /metrics covers all of them; a dead worker is replaced; SIGTERM drains every worker',
    async () => {
      const database = await createPostgresDatabase();
      try {
        const env = { GATEWAY_CONFIG: path.join(directory, 'gateway.yaml'), DATABASE_URL: database.url, REDIS_URL: redisUrl };
        const account = runCli(env, ['accounts', 'create', '--name', 'workers']) as { id: string };
        const { key } = runCli(env, ['keys', 'create', '--account', account.id, '--name', 'k']) as { key: string };
        server = await spawnServe(env, ['--workers', '2']);
        await waitForStatus(server, '/readyz');
        const deadline = Date.now() + 30_000;
        while (logLines(server.output()).filter((line) => line.msg === 'gateway listening').length < 2 && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        const listening = logLines(server.output()).filter((line) => line.msg === 'gateway listening');
        expect(new Set(listening.map((line) => line.worker)).size, server.output()).toBe(2);

        // 30 requests over fresh connections, spread over the workers by the primary.
        for (let index = 0; index < 30; index++) {
          const response = await fetch(`${server.baseUrl}/v1/models`, { headers: { connection: 'close' } });
          expect(response.status).toBe(200);
          await response.text();
        }
        // Whichever worker answers the scrape, it reports the whole cluster.
        for (let scrape = 0; scrape < 3; scrape++) {
          const response = await fetch(`${server.baseUrl}/metrics`, { headers: { connection: 'close' } });
          const samples = parsePrometheusText(await response.text());
          expect(sampleValue(samples, 'gateway_http_requests_total', { route: '/v1/models', status: '200' })).toBe(30);
        }

        // A worker that dies is replaced.
        const primaryLines = () => logLines(server!.output()).filter((line) => line.msg === 'worker listening');
        while (primaryLines().length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
        const victim = primaryLines()[0];
        process.kill(Number(victim?.pid), 'SIGKILL');
        const replacedBy = Date.now() + 30_000;
        while (primaryLines().length < 3 && Date.now() < replacedBy) await new Promise((resolve) => setTimeout(resolve, 100));
        expect(
          logLines(server.output()).some((line) => line.msg === 'worker died; starting a new one'),
          server.output(),
        ).toBe(true);
        expect(primaryLines()).toHaveLength(3);
        for (let index = 0; index < 10; index++) {
          const response = await fetch(`${server.baseUrl}/healthz`, {
            headers: { connection: 'close' },
            signal: AbortSignal.timeout(5_000),
          });
          expect(response.status).toBe(200);
        }

        const streams = await Promise.all(Array.from({ length: 4 }, () => openStream(server!.baseUrl, key)));
        await Promise.all(streams.map((stream) => stream.firstChunk));
        server.child.kill('SIGTERM');
        const results = await Promise.all(streams.map((stream) => stream.done));
        expect(await server.exited, server.output()).toEqual({ code: 0, signal: null });
        for (const result of results) expect(result.text.trimEnd().endsWith('data: [DONE]')).toBe(true);
        const store = await createStore(database.url);
        try {
          expect(await store.countUsageEvents({ accountId: account.id })).toBe(4);
        } finally {
          await store.close();
        }
      } finally {
        await database.drop();
      }
    },
    90_000,
  );
});
