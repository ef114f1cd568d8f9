import type { RequestLogRow } from '../../server/db/types';

/** A request log record for recorder and store tests: a chat call answered 200, every field set. */
export function fakeRequestRecord(id: string, overrides: Partial<RequestLogRow> = {}): RequestLogRow {
  return {
    id,
    requestId: `req-${id}`,
    receivedAt: new Date('2026-03-01T08:00:00.000Z'),
    accountId: 'acc_r1',
    keyId: 'key_r1',
    route: '/v1/chat/completions',
    requestedModel: 'mock-chat',
    model: 'mock-chat',
    provider: 'mock',
    deployment: null,
    stream: false,
    status: 200,
    errorCode: null,
    promptTokens: 10,
    completionTokens: 5,
    cachedTokens: 2,
    cacheWriteTokens: 1,
    cacheWrite1hTokens: 0,
    reasoningTokens: 3,
    costFemtoUsd: 123_456_789_012_345_678n,
    latencyMs: 40,
    firstByteMs: 30,
    upstreamMs: 20,
    upstreamAttempts: 1,
    clientIp: '127.0.0.1',
    userAgent: 'test',
    sessionId: null,
    requestBody: '{"model":"mock-chat"}',
    responseBody: '{"object":"chat.completion"}',
    ...overrides,
  };
}
