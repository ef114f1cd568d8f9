import type { IncomingHttpHeaders } from 'node:http';
import type { RequestLogRow } from '../db/types';
import type { RequestContext } from '../pipeline/request-context';
import { sessionOf } from '../routing/session-affinity';
import { keptBody } from './redact-secrets';

/** Where the request log's records go: queued, and written with the usage batches (docs/request-log.md). */
export interface RequestLogSink {
  recordRequest(record: RequestLogRow): void;
}

/** The `request_log` settings the pipeline applies. */
export interface RequestLogSettings {
  sink: RequestLogSink;
  /** The record's id: time-ordered. */
  newId: (nowMs: number) => string;
  bodies: { maxBytes: number; accounts: ReadonlySet<string>; keys: ReadonlySet<string> };
}

/** What a record needs of the response beside the context. */
export interface ClosedRequest {
  route: string;
  status: number;
  aborted: boolean;
  ip: string | undefined;
}

/** Longest user agent kept. */
const MAX_HEADER_CHARS = 256;

/**
 * docs/request-log.md: one request's record, from what its context gathered. Tokens, cost and
 * the status of a metered call are its usage event's, so the record, the usage report and the
 * cost header agree to the digit; a client that went away is 499 as in the usage event.
 */
export function requestRecord(
  context: RequestContext,
  closed: ClosedRequest,
  headers: IncomingHttpHeaders,
  totalMs: number,
  settings: RequestLogSettings,
): RequestLogRow {
  const { usage, principal } = context;
  const maxBodyBytes = settings.bodies.maxBytes;
  const key = principal?.kind === 'api-key' ? principal.key : null;
  const status = usage !== null ? usage.status : closed.aborted ? 499 : closed.status;
  return {
    id: settings.newId(context.receivedAt),
    requestId: context.requestId,
    receivedAt: new Date(context.receivedAt),
    accountId: key?.accountId ?? null,
    keyId: key?.id ?? null,
    route: closed.route,
    requestedModel: context.requestedModel ?? null,
    model: usage?.model ?? context.model ?? null,
    provider: usage?.provider ?? context.provider ?? null,
    deployment: usage?.deployment ?? context.deployment ?? null,
    stream: context.stream,
    status,
    errorCode: usage?.errorCode ?? context.errorCode ?? (status >= 400 && closed.aborted ? 'client_closed_request' : null),
    promptTokens: usage?.promptTokens ?? 0,
    completionTokens: usage?.completionTokens ?? 0,
    cachedTokens: usage?.cachedTokens ?? 0,
    cacheWriteTokens: usage?.cacheWriteTokens ?? 0,
    cacheWrite1hTokens: usage?.cacheWrite1hTokens ?? 0,
    reasoningTokens: usage?.reasoningTokens ?? 0,
    costFemtoUsd: usage?.costFemtoUsd ?? 0n,
    latencyMs: Math.round(totalMs),
    firstByteMs: context.firstByteMs === null ? null : Math.round(context.firstByteMs),
    upstreamMs: Math.round(context.upstreamMs),
    upstreamAttempts: context.upstreamAttempts,
    clientIp: closed.ip ?? null,
    userAgent: headerText(headers['user-agent']),
    // The session the routing read (docs/routing.md); from the headers alone where no model call was admitted.
    sessionId: context.sessionId === undefined ? sessionOf(headers, null) : context.sessionId,
    requestBody: context.bodyLimitBytes > 0 ? keptBody(context.requestBody, maxBodyBytes) : null,
    responseBody: context.bodyLimitBytes > 0 ? keptBody(context.responseBody, maxBodyBytes) : null,
  };
}

function headerText(value: string | string[] | undefined): string | null {
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined || text.length === 0 ? null : text.slice(0, MAX_HEADER_CHARS);
}

/** docs/request-log.md: the bodies are kept where the operator listed the key or its account. */
export function bodyLimitFor(settings: RequestLogSettings, keyId: string, accountId: string): number {
  const { bodies } = settings;
  return bodies.keys.has(keyId) || bodies.accounts.has(accountId) ? bodies.maxBytes : 0;
}
