import type { RequestDetail, RequestRecord } from '../../contract';
import type { RequestLogRow } from '../db/types';
import { femtoToUsdText } from '../usage/cost';

/** A record as GET /v1/admin/requests shows it (docs/request-log.md): never its bodies. */
export function toRequestView(row: RequestLogRow): RequestRecord {
  return {
    id: row.id,
    request_id: row.requestId,
    received_at: row.receivedAt.toISOString(),
    account_id: row.accountId,
    key_id: row.keyId,
    route: row.route,
    requested_model: row.requestedModel,
    model: row.model,
    provider: row.provider,
    stream: row.stream,
    status: row.status,
    error_code: row.errorCode,
    tokens: {
      prompt: row.promptTokens,
      completion: row.completionTokens,
      cached: row.cachedTokens,
      cache_write: row.cacheWriteTokens,
      cache_write_1h: row.cacheWrite1hTokens,
      reasoning: row.reasoningTokens,
    },
    // The usage event's exact cost, written as the cost header writes it.
    cost_usd: femtoToUsdText(row.costFemtoUsd),
    latency_ms: row.latencyMs,
    first_byte_ms: row.firstByteMs,
    upstream_ms: row.upstreamMs,
    upstream_attempts: row.upstreamAttempts,
    client_ip: row.clientIp,
    user_agent: row.userAgent,
    session_id: row.sessionId,
    deployment: row.deployment,
    bodies_kept: row.requestBody !== null || row.responseBody !== null,
  };
}

/** GET /v1/admin/requests/{id}: the record with its bodies. */
export function toRequestDetail(row: RequestLogRow): RequestDetail {
  return { ...toRequestView(row), request_body: row.requestBody, response_body: row.responseBody };
}

/** A page cursor: the last record's time and id, opaque to clients. */
export function encodeRequestCursor(row: Pick<RequestLogRow, 'receivedAt' | 'id'>): string {
  return Buffer.from(`r|${row.receivedAt.toISOString()}|${row.id}`).toString('base64url');
}

/** The cursor's position, or null when it is not one `encodeRequestCursor` made. */
export function decodeRequestCursor(cursor: string): { receivedAt: Date; id: string } | null {
  const [tag, at, id, extra] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  if (tag !== 'r' || at === undefined || id === undefined || id === '' || extra !== undefined) return null;
  const time = new Date(at);
  return Number.isNaN(time.getTime()) || time.toISOString() !== at ? null : { receivedAt: time, id };
}
