import type { Dialect } from './migration-files';
import type { RequestLogRow } from './types';
import { postgresTimestamp, sqliteInsertOnce, sqliteTimestamp, TOKEN_COLUMNS } from './usage-events-insert';

/**
 * request_log's columns as the usage writers bind them, in the order of `requestValues`
 * (docs/request-log.md: the records go in the usage batches' transaction), with their
 * Postgres types for the batch statement's unnest (usage-batch-postgres.ts).
 */
export const REQUEST_LOG_COLUMN_TYPES = {
  id: 'text',
  request_id: 'text',
  received_at: 'timestamp(3)',
  account_id: 'text',
  key_id: 'text',
  route: 'text',
  requested_model: 'text',
  model: 'text',
  provider: 'text',
  deployment: 'text',
  stream: 'boolean',
  status: 'integer',
  error_code: 'text',
  ...(Object.fromEntries(TOKEN_COLUMNS.map((column) => [column, 'integer'])) as Record<(typeof TOKEN_COLUMNS)[number], string>),
  cost_femto_usd: 'bigint',
  latency_ms: 'integer',
  first_byte_ms: 'integer',
  upstream_ms: 'integer',
  upstream_attempts: 'integer',
  client_ip: 'text',
  user_agent: 'text',
  session_id: 'text',
  request_body: 'text',
  response_body: 'text',
} as const;

export const REQUEST_LOG_COLUMNS = Object.keys(REQUEST_LOG_COLUMN_TYPES) as (keyof typeof REQUEST_LOG_COLUMN_TYPES)[];

/** SQLite's INSERT of one record; a record already stored (a retried batch) is skipped. */
export const INSERT_REQUEST_SQLITE_SQL = sqliteInsertOnce('request_log', REQUEST_LOG_COLUMNS, 'id');

/** One record's parameters, in REQUEST_LOG_COLUMNS order, stored as Prisma stores them (see usage-events-insert.ts). */
export function requestValues(record: RequestLogRow, dialect: Dialect): unknown[] {
  const sqlite = dialect === 'sqlite';
  return [
    record.id,
    record.requestId,
    sqlite ? sqliteTimestamp(record.receivedAt) : postgresTimestamp(record.receivedAt),
    record.accountId,
    record.keyId,
    record.route,
    record.requestedModel,
    record.model,
    record.provider,
    record.deployment,
    sqlite ? Number(record.stream) : record.stream,
    record.status,
    record.errorCode,
    record.promptTokens,
    record.completionTokens,
    record.cachedTokens,
    record.cacheWriteTokens,
    record.cacheWrite1hTokens,
    record.reasoningTokens,
    sqlite ? record.costFemtoUsd : record.costFemtoUsd.toString(),
    record.latencyMs,
    record.firstByteMs,
    record.upstreamMs,
    record.upstreamAttempts,
    record.clientIp,
    record.userAgent,
    record.sessionId,
    record.requestBody,
    record.responseBody,
  ];
}
