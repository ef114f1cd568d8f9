import { describe, expect, it } from 'vitest';
import { createKeyLimiter } from '../../server/rate-limit/key-limiter';
import { createMemoryRateLimitStore } from '../../server/rate-limit/memory-store';

function setup() {
  const clock = { now: 1_700_000_000_000 };
  const limiter = createKeyLimiter(createMemoryRateLimitStore({ now: () => clock.now }));
  return { clock, limiter };
}

const limits = { rpm: 3, tpm: 1_000 };

describe('key limiter', () => {
  it('sets the rate-limit headers on an allowed reservation', async () => {
    const { limiter } = setup();
    const reservation = await limiter.reserve('key-1', limits, 100);
    expect(reservation).toMatchObject({ allowed: true, exceeded: null, tooLarge: false, reservedTokens: 100 });
    expect(reservation.headers).toEqual({
      'x-ratelimit-limit-requests': '3',
      'x-ratelimit-remaining-requests': '2',
      'x-ratelimit-limit-tokens': '1000',
      'x-ratelimit-remaining-tokens': '900',
      'x-ratelimit-reset-requests': '20s',
      'x-ratelimit-reset-tokens': '6s',
    });
  });

  it('refuses past rpm with retry-after from when a request fits again', async () => {
    const { clock, limiter } = setup();
    for (let index = 0; index < 3; index += 1) await limiter.reserve('key-1', limits, 10);
    clock.now += 5_500;
    const refused = await limiter.reserve('key-1', limits, 10);
    expect(refused).toMatchObject({ allowed: false, exceeded: 'requests', reservedTokens: 0 });
    // 20 s per request, 5.5 s already refilled.
    expect(refused.headers['retry-after']).toBe('15');
    expect(refused.headers['x-ratelimit-remaining-requests']).toBe('0');
    expect(refused.headers['x-ratelimit-reset-requests']).toBe('54.5s');
  });

  it('refuses past tpm without charging the request bucket', async () => {
    const { limiter } = setup();
    await limiter.reserve('key-1', limits, 900);
    const refused = await limiter.reserve('key-1', limits, 200);
    expect(refused).toMatchObject({ allowed: false, exceeded: 'tokens', tooLarge: false });
    expect(refused.headers['x-ratelimit-remaining-requests']).toBe('2');
    expect(refused.headers['x-ratelimit-remaining-tokens']).toBe('100');
    // 100 tokens missing at 1000 per minute.
    expect(refused.headers['retry-after']).toBe('6');
    const next = await limiter.reserve('key-1', limits, 100);
    expect(next.headers['x-ratelimit-remaining-requests']).toBe('1');
  });

  it('gives retry-after of at least 1 second', async () => {
    const { limiter } = setup();
    const fast = { rpm: 6_000, tpm: 1_000_000 };
    for (let index = 0; index < 6_000; index += 1) await limiter.reserve('key-1', fast, 1);
    const refused = await limiter.reserve('key-1', fast, 1);
    expect(refused.allowed).toBe(false);
    expect(refused.headers['retry-after']).toBe('1');
  });

  it('marks an estimate above tpm as too large, with a full window to wait', async () => {
    const { limiter } = setup();
    const refused = await limiter.reserve('key-1', limits, 1_001);
    expect(refused).toMatchObject({ allowed: false, exceeded: 'tokens', tooLarge: true });
    expect(refused.headers['retry-after']).toBe('60');
  });

  it('settle refunds the unused part of the reservation, once', async () => {
    const { limiter } = setup();
    const reservation = await limiter.reserve('key-1', limits, 500);
    await limiter.settle(reservation, 100);
    await limiter.settle(reservation, 100);
    const next = await limiter.reserve('key-1', limits, 0);
    expect(next.headers['x-ratelimit-remaining-tokens']).toBe('900');
  });

  it('settle charges an overrun into debt; headers never go negative', async () => {
    const { limiter } = setup();
    const reservation = await limiter.reserve('key-1', limits, 100);
    await limiter.settle(reservation, 1_500);
    const refused = await limiter.reserve('key-1', limits, 10);
    expect(refused).toMatchObject({ allowed: false, exceeded: 'tokens' });
    expect(refused.headers['x-ratelimit-remaining-tokens']).toBe('0');
    // -500 tokens: 510 to refill at 1000 per minute = 30.6 s.
    expect(refused.headers['retry-after']).toBe('31');
    expect(refused.headers['x-ratelimit-reset-tokens']).toBe('1m30s');
  });

  it('settling a refused reservation does nothing', async () => {
    const { limiter } = setup();
    const refused = await limiter.reserve('key-1', limits, 5_000);
    await limiter.settle(refused, 5_000);
    const next = await limiter.reserve('key-1', limits, 0);
    expect(next.headers['x-ratelimit-remaining-tokens']).toBe('1000');
  });

  it('keeps keys apart', async () => {
    const { limiter } = setup();
    for (let index = 0; index < 3; index += 1) await limiter.reserve('key-1', limits, 1);
    expect((await limiter.reserve('key-2', limits, 1)).allowed).toBe(true);
  });

  // Sliding windows (docs/rate-limits.md): room returns when the oldest hit leaves the window, a minute after it.
  it('checkUsage applies both the per-key and the per-IP limit', async () => {
    const { limiter } = setup();
    const usageLimits = { perKey: 2, perIp: 3 };
    expect(await limiter.checkUsage('uk-a', '10.0.0.1', usageLimits)).toEqual({ allowed: true, headers: {}, which: null });
    await limiter.checkUsage('uk-a', '10.0.0.1', usageLimits);
    expect(await limiter.checkUsage('uk-a', '10.0.0.1', usageLimits)).toEqual({
      allowed: false,
      headers: { 'retry-after': '60' },
      which: 'key',
    });
    expect((await limiter.checkUsage('uk-b', '10.0.0.1', usageLimits)).allowed).toBe(true);
    expect(await limiter.checkUsage('uk-c', '10.0.0.1', usageLimits)).toEqual({
      allowed: false,
      headers: { 'retry-after': '60' },
      which: 'ip',
    });
    expect((await limiter.checkUsage('uk-c', '10.0.0.2', usageLimits)).allowed).toBe(true);
  });

  it('checkSecretAttempt charges failures only, and refuses both kinds once an IP has used its failures up', async () => {
    const { clock, limiter } = setup();
    const allowed = { allowed: true, headers: {} };
    for (let index = 0; index < 5; index += 1) expect(await limiter.checkSecretAttempt('10.0.0.1', false, 3)).toEqual(allowed);
    for (let index = 0; index < 3; index += 1) expect(await limiter.checkSecretAttempt('10.0.0.1', true, 3)).toEqual(allowed);
    // No failure left: a fourth failure and a passed check alike, until one failure has refilled (60 s / 3).
    expect(await limiter.checkSecretAttempt('10.0.0.1', true, 3)).toEqual({ allowed: false, headers: { 'retry-after': '20' } });
    expect(await limiter.checkSecretAttempt('10.0.0.1', false, 3)).toEqual({ allowed: false, headers: { 'retry-after': '20' } });
    expect(await limiter.checkSecretAttempt('10.0.0.2', false, 3)).toEqual(allowed);
    clock.now += 20_000;
    expect(await limiter.checkSecretAttempt('10.0.0.1', false, 3)).toEqual(allowed);
    expect(await limiter.checkSecretAttempt('10.0.0.1', true, 3)).toEqual(allowed);
    expect((await limiter.checkSecretAttempt('10.0.0.1', true, 3)).allowed).toBe(false);
  });
});
