import type { UsageEvent } from '../../server/usage/types';

/** A usage event for recorder and store tests; `index` makes ids and numbers distinct. */
export function fakeUsageEvent(index: number, overrides: Partial<UsageEvent> = {}): UsageEvent {
  return {
    requestId: `req_${index}`,
    accountId: 'acct_1',
    keyId: `key_${index % 3}`,
    model: 'gpt-4o-mini',
    provider: 'openai',
    receivedAt: Date.parse('2026-03-01T08:00:00.000Z') + index,
    promptTokens: 10 + (index % 7),
    completionTokens: 5 + (index % 11),
    cachedTokens: 0,
    cacheWriteTokens: 0,
    cacheWrite1hTokens: 0,
    reasoningTokens: 0,
    costFemtoUsd: 1_234_567_891n * BigInt(1 + (index % 5)),
    estimated: index % 2 === 0,
    stream: index % 3 === 0,
    status: 200,
    errorCode: null,
    latencyMs: 120.6,
    ...overrides,
  };
}
