import type { UpstreamError } from '../../errors/gateway-error';
import { parseJson, upstreamStatusError } from '../upstream-errors';
import { GeminiErrorBodySchema, type GeminiErrorBody } from './gemini-schemas';

/**
 * Google error bodies -> gateway errors. The body is `{error: {code, message, status, details}}`
 * (https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes). The status code decides
 * (upstreamStatusError, docs/errors.md), with one exception: Gemini answers a bad, expired or
 * blocked key with 400 INVALID_ARGUMENT and an ErrorInfo reason `API_KEY_*`
 * (https://cloud.google.com/apis/design/errors#error_info). That is the gateway's credential,
 * not the caller's mistake: 502 without the provider's text. `retryAfterMs` comes from a
 * `retry-after` header when there is one, else from the body's RetryInfo.
 */
export function geminiStatusError(
  provider: string,
  status: number,
  bodyText: string,
  secret: string,
  retryAfterMs: number | null = null,
): UpstreamError {
  const error = parseErrorBody(bodyText);
  if (error && isCredentialError(error)) return upstreamStatusError(provider, 401, null, secret);
  return upstreamStatusError(provider, status, error?.message ?? null, secret, retryAfterMs ?? (error ? retryDelayMs(error) : null));
}

/** An `{error: …}` object sent as an SSE event after the stream started, or null if `value` is not one. */
export function geminiStreamError(provider: string, value: unknown, secret: string): UpstreamError | null {
  const parsed = GeminiErrorBodySchema.safeParse(value);
  if (!parsed.success) return null;
  const error = parsed.data.error;
  if (isCredentialError(error)) return upstreamStatusError(provider, 401, null, secret);
  // A mid-stream error without a code is the provider failing, not the request.
  return upstreamStatusError(provider, error.code ?? 500, error.message ?? null, secret, retryDelayMs(error));
}

function parseErrorBody(text: string): GeminiErrorBody['error'] | null {
  const json = parseJson(text);
  if (!json.ok) return null;
  const parsed = GeminiErrorBodySchema.safeParse(json.value);
  return parsed.success ? parsed.data.error : null;
}

function isCredentialError(error: GeminiErrorBody['error']): boolean {
  return (error.details ?? []).some((detail) => detail.reason?.startsWith('API_KEY_') === true);
}

/**
 * Google sends the wait for a 429 in the body rather than a `retry-after` header: a RetryInfo
 * detail whose `retryDelay` is a protobuf Duration in JSON ("21s", "0.5s";
 * https://protobuf.dev/reference/protobuf/google.protobuf/#duration).
 */
function retryDelayMs(error: GeminiErrorBody['error']): number | null {
  for (const detail of error.details ?? []) {
    const delay = detail.retryDelay?.trim();
    if (delay === undefined || !delay.endsWith('s')) continue;
    const seconds = Number(delay.slice(0, -1));
    if (delay.length > 1 && Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  }
  return null;
}
