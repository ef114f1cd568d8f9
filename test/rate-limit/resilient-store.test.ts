import { connect, createServer } from 'node:net';
import { Worker } from 'node:worker_threads';
import type { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { GatewayError } from '../../server/errors/gateway-error';
import { createMemoryRateLimitStore } from '../../server/rate-limit/memory-store';
import { createRedisRateLimitStore } from '../../server/rate-limit/redis-store';
import { createResilientRateLimitStore, type RateLimitStoreStatus } from '../../server/rate-limit/resilient-store';
import type { BucketRequest, RateLimitStore } from '../../server/rate-limit/types';
import { createTestRedis, deleteKeys, isRedisReachable, uniquePrefix } from './redis-test-client';
import { switchableGate } from '../helpers/switchable-gate';

const bucket = (id: string, capacity: number, cost = 1): BucketRequest => ({ id, capacity, windowMs: 60_000, cost });

/** A primary whose health the test switches: 'ok' answers from a memory store of its own. */
function controllablePrimary() {
  const { control, gate } = switchableGate();
  const healthy = createMemoryRateLimitStore();
  const store: RateLimitStore = {
    take: (requests) => gate(() => healthy.take(requests)),
    hit: (windows) => gate(() => healthy.hit(windows)),
    adjust: (shape, delta) => gate(() => healthy.adjust(shape, delta)),
    close: () => healthy.close(),
  };
  return { control, store };
}

function setup(policy: 'open' | 'closed') {
  const clock = { now: 1_700_000_000_000 };
  const { control, store: primary } = controllablePrimary();
  const changes: RateLimitStoreStatus[] = [];
  const store = createResilientRateLimitStore({
    primary,
    policy,
    timeoutMs: 50,
    probeIntervalMs: 1_000,
    now: () => clock.now,
    onStateChange: (state) => changes.push(state),
  });
  return { clock, control, changes, store };
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

const port = await closedPort();
const redisAvailable = await isRedisReachable();

describe('resilient rate-limit store', () => {
  it('answers from the primary while it is up', async () => {
    const { control, store } = setup('open');
    expect((await store.take([bucket('a', 1)])).allowed).toBe(true);
    expect((await store.take([bucket('a', 1)])).allowed).toBe(false);
    expect(control.calls).toBe(2);
    expect(store.status()).toBe('ok');
  });

  it('open: falls back to per-instance limits, probes at most once per interval, recovers', async () => {
    const { clock, control, changes, store } = setup('open');
    control.mode = 'fail';
    expect((await store.take([bucket('a', 2)])).allowed).toBe(true);
    expect(store.status()).toBe('down');
    expect(changes).toEqual(['down']);
    expect((await store.take([bucket('a', 2)])).allowed).toBe(true);
    expect((await store.take([bucket('a', 2)])).allowed).toBe(false);
    await store.adjust({ id: 'a', capacity: 2, windowMs: 60_000 }, 1);
    expect((await store.take([bucket('a', 2)])).allowed).toBe(true);
    expect(control.calls).toBe(1);

    clock.now += 1_000;
    await store.take([bucket('b', 2)]);
    expect(control.calls).toBe(2);
    expect(store.status()).toBe('down');

    control.mode = 'ok';
    await store.take([bucket('b', 2)]);
    expect(control.calls).toBe(2);
    clock.now += 1_000;
    expect((await store.take([bucket('a', 2)])).allowed).toBe(true);
    expect(control.calls).toBe(3);
    expect(store.status()).toBe('ok');
    expect(changes).toEqual(['down', 'ok']);
  });

  it('counts a primary slower than the timeout as down', async () => {
    const { control, store } = setup('open');
    control.mode = 'hang';
    const started = Date.now();
    expect((await store.take([bucket('a', 2)])).allowed).toBe(true);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(store.status()).toBe('down');
  });

  it('does not call it an outage when this process, not the primary, was busy past the timeout', async () => {
    // A primary that answers over a real socket at once, from another thread (as Redis would
    // from another process); the test then blocks its own event loop for longer than the
    // timeout, so the answer waits on the socket while the timer expires.
    const responder = new Worker(
      `const { createServer } = require('node:net');
       const { parentPort } = require('node:worker_threads');
       const server = createServer((socket) => { socket.on('error', () => {}); socket.on('data', () => socket.write('ok')); });
       server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));`,
      { eval: true },
    );
    const port = await new Promise<number>((resolve) => responder.once('message', resolve));
    const socket = connect(port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    const memory = createMemoryRateLimitStore();
    const overSocket = <T>(call: () => Promise<T>) =>
      new Promise<T>((resolve, reject) => {
        socket.once('data', () => {
          call().then(resolve, reject);
        });
        socket.write('take');
      });
    const changes: RateLimitStoreStatus[] = [];
    const store = createResilientRateLimitStore({
      primary: {
        take: (requests) => overSocket(() => memory.take(requests)),
        hit: (windows) => overSocket(() => memory.hit(windows)),
        adjust: (shape, delta) => overSocket(() => memory.adjust(shape, delta)),
        close: async () => undefined,
      },
      policy: 'closed',
      timeoutMs: 50,
      onStateChange: (state) => changes.push(state),
    });
    try {
      const pending = store.take([bucket('busy', 1)]);
      const blockedUntil = performance.now() + 200;
      while (performance.now() < blockedUntil) {
        // busy: the event loop cannot run
      }
      expect((await pending).allowed).toBe(true);
      expect(store.status()).toBe('ok');
      expect(changes).toEqual([]);
    } finally {
      socket.destroy();
      await responder.terminate();
    }
  });

  it('closed: throws 503 rate_limiter_unavailable while down, and recovers', async () => {
    const { clock, control, store } = setup('closed');
    control.mode = 'fail';
    const error = await store.take([bucket('a', 2)]).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ status: 503, type: 'server_error', code: 'rate_limiter_unavailable' });
    await expect(store.adjust({ id: 'a', capacity: 2, windowMs: 60_000 }, 1)).rejects.toMatchObject({ status: 503 });
    expect(control.calls).toBe(1);
    control.mode = 'ok';
    clock.now += 1_000;
    expect((await store.take([bucket('a', 2)])).allowed).toBe(true);
    expect(store.status()).toBe('ok');
  });

  it('passes a malformed request through without calling it an outage', async () => {
    const { store } = setup('closed');
    await expect(store.take([bucket('a', 2, 0.5)])).rejects.toThrow(RangeError);
    expect(store.status()).toBe('ok');
  });

  describe('with a Redis client pointed at a closed port', () => {
    const clients: Redis[] = [];
    const unreachable = (policy: 'open' | 'closed') => {
      const redis = createTestRedis(`redis://127.0.0.1:${port}`);
      redis.on('error', () => undefined);
      clients.push(redis);
      const changes: RateLimitStoreStatus[] = [];
      const store = createResilientRateLimitStore({
        primary: createRedisRateLimitStore({ redis, prefix: uniquePrefix() }),
        policy,
        onStateChange: (state) => changes.push(state),
      });
      return { store, changes };
    };
    afterAll(() => clients.forEach((client) => client.disconnect()));

    it('open: answers from memory and reports down', async () => {
      const { store, changes } = unreachable('open');
      const started = Date.now();
      expect((await store.take([bucket('a', 1)])).allowed).toBe(true);
      expect((await store.take([bucket('a', 1)])).allowed).toBe(false);
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(store.status()).toBe('down');
      expect(changes).toEqual(['down']);
    });

    it('closed: throws the 503 GatewayError', async () => {
      const { store } = unreachable('closed');
      await expect(store.take([bucket('a', 1)])).rejects.toMatchObject({ status: 503, code: 'rate_limiter_unavailable' });
      expect(store.status()).toBe('down');
    });
  });

  it.skipIf(!redisAvailable)('reports ok in front of a reachable Redis', async () => {
    const redis = createTestRedis();
    await redis.connect();
    const prefix = uniquePrefix();
    const store = createResilientRateLimitStore({ primary: createRedisRateLimitStore({ redis, prefix }), policy: 'closed' });
    expect((await store.take([bucket('a', 1)])).allowed).toBe(true);
    expect(store.status()).toBe('ok');
    await deleteKeys(redis, prefix);
    await store.close();
    await redis.quit();
  });
});
