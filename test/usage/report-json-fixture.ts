import type { Store, UsageEventRow } from '../../server/db/types';

/**
 * A fixed account for pinning the usage report's JSON (report-json.test.ts): keys listed and
 * left out for each reason, days out of order, spends that round up, round down, print with
 * an exponent (under 1e-6 USD) and pass 2^53 nano-dollars.
 */
export const REPORT_ACCOUNT = 'acc_report_json';
export const REPORT_NOW = Date.parse('2026-05-31T12:00:00.000Z');

const created = (iso: string) => new Date(iso);

export async function seedReportFixture(store: Store): Promise<void> {
  await store.createAccount({ id: REPORT_ACCOUNT, name: 'report json', createdAt: created('2026-01-01T00:00:00.000Z') });
  await store.createAccount({ id: 'acc_report_other', name: 'other', createdAt: created('2026-01-01T00:00:00.000Z') });
  const keys: Array<{ id: string; name: string; at: string; account?: string }> = [
    { id: 'key_rj_b', name: 'beta', at: '2026-02-01T00:00:00.000Z' },
    { id: 'key_rj_a', name: 'alpha', at: '2026-02-01T00:00:00.000Z' },
    { id: 'key_rj_old', name: 'zulu', at: '2026-01-15T08:30:00.123Z' },
    { id: 'key_rj_idle', name: 'idle', at: '2026-03-01T00:00:00.000Z' },
    { id: 'key_rj_revoked_used', name: 'revoked used', at: '2026-01-20T00:00:00.000Z' },
    { id: 'key_rj_revoked_idle', name: 'revoked idle', at: '2026-01-21T00:00:00.000Z' },
    { id: 'key_rj_blocked', name: 'blocked', at: '2026-02-10T00:00:00.000Z' },
    { id: 'key_rj_other', name: 'other account', at: '2026-02-01T00:00:00.000Z', account: 'acc_report_other' },
  ];
  for (const [index, key] of keys.entries()) {
    await store.createApiKey({
      id: key.id,
      accountId: key.account ?? REPORT_ACCOUNT,
      name: key.name,
      keyHash: `report-json-hash-${index}`,
      hint: `sk-...${String(index).padStart(4, '0')}`,
      rpm: null,
      tpm: null,
      createdAt: created(key.at),
    });
  }
  await store.updateApiKey('key_rj_revoked_used', { status: 'REVOKED', revokedAt: created('2026-05-01T00:00:00.000Z') });
  await store.updateApiKey('key_rj_revoked_idle', { status: 'REVOKED', revokedAt: created('2026-05-01T00:00:00.000Z') });
  await store.updateApiKey('key_rj_blocked', { blocked: true, blockedBy: 'operator' });

  const max = 9_223_372_036_854_775_807n;
  const spends: Array<[keyId: string, day: string, costs: bigint[], prompt: number, completion: number]> = [
    ['key_rj_b', '2026-05-30', [1_500_000n, 2_499_999n], 1_200, 340],
    ['key_rj_b', '2026-05-02', [123_456_789_012n], 10, 0],
    ['key_rj_b', '2026-05-15', [999_999_999_999_999n, 1n], 3_000_000, 12],
    ['key_rj_a', '2026-05-31', [499_999n], 5, 5],
    ['key_rj_a', '2026-05-01', [500_000n, 700_000_000n], 7, 9],
    ['key_rj_old', '2026-05-20', Array.from({ length: 1_200 }, () => max), 1, 1],
    ['key_rj_old', '2026-05-21', [0n], 0, 0],
    // Outside the range: not in it.
    ['key_rj_old', '2026-04-29', [1_000_000_000n], 1, 1],
    ['key_rj_revoked_used', '2026-05-10', [42_000_000n], 100, 20],
    ['key_rj_revoked_idle', '2026-04-01', [42_000_000n], 100, 20],
    ['key_rj_blocked', '2026-05-03', [987_654_321_000n, 12_345n], 4_000, 2_500],
    ['key_rj_other', '2026-05-05', [1_000_000_000n], 9, 9],
  ];
  let counter = 0;
  const events: UsageEventRow[] = [];
  for (const [keyId, day, costs, promptTokens, completionTokens] of spends) {
    for (const costFemtoUsd of costs) {
      counter += 1;
      events.push({
        eventId: `evt_rj_${counter}`,
        requestId: `req_rj_${counter}`,
        accountId: keyId === 'key_rj_other' ? 'acc_report_other' : REPORT_ACCOUNT,
        keyId,
        model: 'gpt-4o-mini',
        provider: 'openai',
        deployment: null,
        day,
        receivedAt: new Date(`${day}T04:00:00.000Z`),
        promptTokens,
        completionTokens,
        cachedTokens: 1,
        cacheWriteTokens: 2,
        cacheWrite1hTokens: 0,
        reasoningTokens: 3,
        costFemtoUsd,
        estimated: false,
        stream: counter % 2 === 0,
        status: 200,
        errorCode: null,
        latencyMs: 100,
      });
    }
  }
  // Two batches, the second adding into rows of the first.
  await store.recordUsage(events.slice(0, 5));
  await store.recordUsage(events.slice(5));
}
