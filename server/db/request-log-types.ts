import type { TokenCounts } from './types';

/**
 * One model request as the request log keeps it (docs/request-log.md): refused requests too,
 * with no key or account when none was given. Tokens and cost are the request's usage event's.
 */
export interface RequestLogRow extends TokenCounts {
  /** The record's own id (time-ordered); `requestId` is the client's or ours and need not be unique. */
  id: string;
  requestId: string;
  receivedAt: Date;
  accountId: string | null;
  keyId: string | null;
  /** The route's path, e.g. /v1/chat/completions. */
  route: string;
  /** The model asked for, and the catalogue model and provider that answered (after a fallback, the fallback). */
  requestedModel: string | null;
  model: string | null;
  provider: string | null;
  /** The deployment that answered (docs/routing.md); null when none did. */
  deployment: string | null;
  stream: boolean;
  /** HTTP status the client got; 499 when the client went away first. */
  status: number;
  errorCode: string | null;
  costFemtoUsd: bigint;
  latencyMs: number;
  /** Until the first byte of the body went out; null when none did. */
  firstByteMs: number | null;
  upstreamMs: number;
  /** Upstream calls made: 1 + retries + fallbacks; 0 when none was. */
  upstreamAttempts: number;
  clientIp: string | null;
  userAgent: string | null;
  /** The session the client named, as routing reads it (docs/routing.md, "Session affinity"); null without one. */
  sessionId: string | null;
  /** Kept only where the operator turned bodies on; null after the bodies' own retention. */
  requestBody: string | null;
  responseBody: string | null;
}

/** GET /v1/admin/requests's filters; `before` is the last record of the previous page. */
export interface RequestLogQuery {
  accountId?: string;
  keyId?: string;
  model?: string;
  status?: number;
  errorCode?: string;
  from?: Date;
  to?: Date;
  limit: number;
  before?: { receivedAt: Date; id: string };
}
