import { describe, expect, it } from 'vitest';
import { UpstreamError } from '../../server/errors/gateway-error';
import { DeploymentHealth } from '../../server/routing/deployment-health';
import { SessionBindings } from '../../server/routing/session-affinity';
import { sessionOf } from '../../server/routing/session-affinity';
import { decodeRoutingEvent, type RoutingEvent } from '../../server/routing/shared-routing-state';

/** docs/routing.md, "Health and cooldown", on the health object alone. */
const failure = (status: number, retryAfterMs: number | null = null) =>
  new UpstreamError(status === 400 ? 'rejected' : 'unavailable', `HTTP ${status}`, {
    retryable: status !== 400 && status !== 401,
    upstreamStatus: status,
    retryAfterMs,
  });

function health() {
  const clock = { now: 1_000_000 };
  return { clock, health: new DeploymentHealth({ baseMs: 1_000, maxMs: 60_000 }, () => clock.now) };
}

describe('deployment cooldowns', () => {
  it('double per consecutive failure without retry-after, bounded, and end with a success', () => {
    const { clock, health: deployments } = health();
    const waits: number[] = [];
    for (let count = 0; count < 8; count++) {
      deployments.failed('d', failure(500));
      waits.push(deployments.coolingUntil('d') - clock.now);
      clock.now = deployments.coolingUntil('d');
    }
    expect(waits).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000]);
    deployments.succeeded('d');
    deployments.failed('d', failure(503));
    expect(deployments.coolingUntil('d') - clock.now).toBe(1_000);
  });

  it('honour retry-after, bounded by the maximum, and a further failure extends a cooldown, never shortens it', () => {
    const { clock, health: deployments } = health();
    deployments.failed('d', failure(429, 30_000));
    expect(deployments.coolingUntil('d')).toBe(clock.now + 30_000);
    deployments.failed('d', failure(429, 5_000));
    expect(deployments.coolingUntil('d')).toBe(clock.now + 30_000);
    deployments.failed('d', failure(429, 3_600_000));
    expect(deployments.coolingUntil('d')).toBe(clock.now + 60_000);
    // Another instance's shorter deadline does not shorten it either.
    deployments.applyCooldown('d', clock.now + 10_000);
    expect(deployments.coolingUntil('d')).toBe(clock.now + 60_000);
  });

  it("cool on the deployment's own failures (401 included), never on a caller's error", () => {
    const { health: deployments } = health();
    expect(deployments.failed('d', failure(400))).toBe(false);
    expect(deployments.coolingUntil('d')).toBe(0);
    expect(deployments.failed('d', failure(401))).toBe(true);
    expect(deployments.recent('d')).toEqual({ requests: 0, errors: 2 });
  });
});

describe('session ids and bindings', () => {
  it('read the session from what Claude Code, Codex and other clients send', () => {
    expect(sessionOf({ 'x-claude-code-session-id': 'cc-1' }, {})).toBe('cc-1');
    expect(sessionOf({}, { metadata: { user_id: 'user_ab12_account_cd34_session_5e6f' } })).toBe('5e6f');
    expect(sessionOf({}, { metadata: { user_id: JSON.stringify({ device_id: 'x', session_id: 'json-session' }) } })).toBe('json-session');
    expect(sessionOf({ session_id: 'codex-1' }, {})).toBe('codex-1');
    expect(sessionOf({ 'session-id': 'codex-2' }, {})).toBe('codex-2');
    expect(sessionOf({}, { prompt_cache_key: 'pck' })).toBe('pck');
    expect(sessionOf({ 'x-session-id': 'generic' }, {})).toBe('generic');
    expect(sessionOf({}, { metadata: { user_id: 'just-a-user' } })).toBeNull();
    expect(sessionOf(null, { model: 'm' })).toBeNull();
  });

  it('are bounded in memory: the least recently used goes first', () => {
    const bindings = new SessionBindings(() => 0, 2);
    bindings.bind('one', 'a', 1_000);
    bindings.bind('two', 'b', 1_000);
    expect(bindings.get('one')).toBe('a');
    bindings.bind('one', 'a', 1_000);
    bindings.bind('three', 'c', 1_000);
    expect([bindings.get('one'), bindings.get('two'), bindings.get('three'), bindings.size]).toEqual(['a', null, 'c', 2]);
  });
});

describe('routing messages between instances', () => {
  it('round-trip, and anything else on the channel is ignored', () => {
    const events: RoutingEvent[] = [
      { kind: 'cooled', id: 'dep-a', until: 1_700_000_000_000 },
      { kind: 'healed', id: 'dep-a' },
      { kind: 'enabled', id: 'dep-b', enabled: false },
      { kind: 'bound', scope: 'key\u0000model\u0000session', id: 'dep-c', ttlMs: 3_600_000 },
    ];
    for (const event of events) expect(decodeRoutingEvent(JSON.stringify(event))).toEqual(event);
    for (const junk of [
      '',
      'null',
      '[]',
      '{"kind":"cooled","id":"dep-a"}',
      '{"kind":"cooled","id":"dep-a","until":-1}',
      '{"kind":"healed","id":""}',
      '{"kind":"enabled","id":"dep-a","enabled":"no"}',
      '{"kind":"bound","id":"dep-a","ttlMs":5}',
      '{"kind":"other","id":"dep-a"}',
      `{"kind":"healed","id":"${'x'.repeat(1_001)}"}`,
    ]) {
      expect(decodeRoutingEvent(junk)).toBeNull();
    }
  });
});
