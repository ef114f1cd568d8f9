import { mkdtempSync, readdirSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createStore } from '../../server/db/create-store';
import type { TestDatabase } from '../db/databases';
import { runCli, spawnServe, type ServeProcess, waitForStatus } from '../helpers/serve-process';
import { createTestDatabase } from '../helpers/test-gateway';
import { isRedisReachable, redisUrl } from '../rate-limit/redis-test-client';

/**
 * A start that cannot serve exits, and touches nothing of a live instance (README "Deployment",
 * docs/usage-durability.md "One directory, one process"): two processes from one checkout with
 * default settings (the bundled configuration, the usage journal under the working directory's
 * `data/`), the second on the first one's port.
 */
const redis = await isRedisReachable();
const EXIT_WITHIN_MS = 10_000;

async function chat(server: ServeProcess, key: string): Promise<number> {
  const response = await fetch(`${server.baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'mock-chat', messages: [{ role: 'user', content: 'hello' }] }),
  });
  await response.arrayBuffer();
  return response.status;
}

/** The journal segments a process has open, as /proc shows them ("(deleted)" once unlinked under it). */
function openSegments(pid: number): string[] {
  const directory = `/proc/${pid}/fd`;
  return readdirSync(directory)
    .map((fd) => {
      try {
        return readlinkSync(path.join(directory, fd));
      } catch {
        return '';
      }
    })
    .filter((target) => target.includes('segment-'));
}

/**
 * The serve processes a test starts (killed after it), and `scratch`: a fresh directory and
 * test database, both removed after the test.
 */
function useScratch() {
  const processes: ServeProcess[] = [];
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const server of processes.splice(0)) server.kill();
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });
  const scratch = async (prefix: string): Promise<{ directory: string; database: TestDatabase }> => {
    const directory = mkdtempSync(path.join(tmpdir(), prefix));
    const database = await createTestDatabase();
    cleanups.push(
      () => rmSync(directory, { recursive: true, force: true }),
      () => database.drop(),
    );
    return { directory, database };
  };
  return { processes, scratch };
}

const CASES: { name: string; env: Record<string, string>; skip: boolean }[] = [
  { name: 'without Redis', env: {}, skip: false },
  { name: 'with Redis', env: { REDIS_URL: redisUrl }, skip: !redis },
];

describe.each(CASES)('a start on a busy port, $name', ({ env: extra, skip }) => {
  const { processes, scratch } = useScratch();

  it.skipIf(skip)(
    'exits non-zero within 10 s with one line naming the address; the live instance\u2019s journal is untouched and it keeps billing',
    async () => {
      const { directory: cwd, database } = await scratch('gw-checkout-');
      // Default settings: no USAGE_JOURNAL_DIR, so slots under `cwd`/data/usage-journal.
      const env = { DATABASE_URL: database.url, USAGE_JOURNAL_DIR: '', ...extra };
      const account = runCli(env, ['accounts', 'create', '--name', 'busy-port'], { cwd }) as { id: string };
      const { key } = runCli(env, ['keys', 'create', '--account', account.id, '--name', 'k'], { cwd }) as { key: string };

      const live = await spawnServe(env, [], { cwd });
      processes.push(live);
      await waitForStatus(live, '/readyz');
      for (let request = 0; request < 3; request++) expect(await chat(live, key)).toBe(200);
      const journal = path.join(cwd, 'data', 'usage-journal');
      const slot = path.join(journal, 'worker-1');
      const [segment] = readdirSync(slot).filter((name) => name.startsWith('segment-'));
      expect(segment).toBeDefined();
      const inode = statSync(path.join(slot, segment as string)).ino;

      const started = Date.now();
      const second = await spawnServe({ ...env, PORT: String(live.port) }, [], { cwd });
      processes.push(second);
      const { code } = await second.exited;
      const elapsed = Date.now() - started;

      expect(code, second.output()).toBe(1);
      expect(elapsed).toBeLessThan(EXIT_WITHIN_MS);
      expect(second.output()).toContain(`model-gateway: cannot listen on 127.0.0.1:${live.port}: the address is in use by another process`);
      // Nothing of the journal was touched: no slot of its own, the live one's segment the same file.
      expect(readdirSync(journal)).toEqual(['worker-1']);
      expect(statSync(path.join(slot, segment as string)).ino).toBe(inode);
      expect(openSegments(live.child.pid as number)).toEqual([path.join(slot, segment as string)]);

      for (let request = 0; request < 3; request++) expect(await chat(live, key)).toBe(200);
      live.child.kill('SIGTERM');
      expect((await live.exited).code, live.output()).toBe(0);
      const store = await createStore(database.url);
      try {
        expect(await store.countUsageEvents({ accountId: account.id })).toBe(6);
      } finally {
        await store.close();
      }
    },
    60_000,
  );
});

describe('a directory the operator fixed', () => {
  const { processes, scratch } = useScratch();

  it.skipIf(!redis)(
    'USAGE_JOURNAL_DIR held by a live instance: `serve --workers 2` on it fails to start, names the holder and exits 1',
    async () => {
      const { directory: journal, database } = await scratch('gw-fixed-journal-');
      const env = { DATABASE_URL: database.url, REDIS_URL: redisUrl, USAGE_JOURNAL_DIR: journal };
      const live = await spawnServe(env);
      processes.push(live);
      await waitForStatus(live, '/readyz');

      const cluster = await spawnServe(env, ['--workers', '2']);
      processes.push(cluster);
      const { code } = await cluster.exited;

      expect(code, cluster.output()).toBe(1);
      expect(cluster.output()).toContain(`usage journal ${path.join(journal, 'worker-1')} is in use by process ${live.child.pid}`);
      expect(cluster.output()).toContain('a worker failed to start: stopping the cluster');
      expect((await fetch(`${live.baseUrl}/readyz`)).status).toBe(200);
    },
    60_000,
  );
});
