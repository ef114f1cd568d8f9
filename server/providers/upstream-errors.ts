import { UpstreamError } from '../errors/gateway-error';

/** JSON.parse that never throws: upstream bodies are untrusted (docs/architecture.md). */
export function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/**
 * Maps a non-success upstream status to the gateway's error (docs/errors.md):
 * - 400/404/409/413/422: the caller's fault -> 400 `upstream_rejected` with the provider's message;
 * - 401/403: the gateway's provider credentials are wrong -> 502, never the provider's text
 *   (it may quote the key);
 * - 408/429/5xx: retryable, 502 (504 for 408/524) once retries and fallbacks are spent.
 * `message` is the provider's error message, already extracted by the adapter; `secret` is
 * the provider key, scrubbed from anything passed on.
 */
export function upstreamStatusError(
  provider: string,
  status: number,
  message: string | null,
  secret: string,
  retryAfterMs: number | null = null,
): UpstreamError {
  if (status === 401 || status === 403) {
    return new UpstreamError('unavailable', `The provider "${provider}" refused the gateway's credentials.`, {
      retryable: false,
      upstreamStatus: status,
    });
  }
  if (status === 408 || status === 504 || status === 524) {
    return new UpstreamError('timeout', `The provider "${provider}" timed out.`, { retryable: true, upstreamStatus: status, retryAfterMs });
  }
  if (status === 429 || status >= 500) {
    return new UpstreamError('unavailable', `The provider "${provider}" is unavailable (HTTP ${status}).`, {
      retryable: true,
      upstreamStatus: status,
      retryAfterMs,
    });
  }
  const detail = message ? redact(message, secret).slice(0, 2000) : `HTTP ${status}`;
  return new UpstreamError('rejected', `The provider "${provider}" rejected the request: ${detail}`, {
    retryable: false,
    upstreamStatus: status,
  });
}

/**
 * The wait an upstream asks for, in ms, or null: `retry-after-ms` (OpenAI), else `retry-after`
 * as seconds or an HTTP date (RFC 9110 §10.2.3), the same reading as openai-node's client.
 */
export function parseRetryAfterMs(headers: Record<string, string | string[] | undefined>, nowMs: number): number | null {
  const first = (name: string): string | undefined => {
    const value = headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  const milliseconds = Number.parseFloat(first('retry-after-ms') ?? '');
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return Math.round(milliseconds);
  const retryAfter = first('retry-after')?.trim();
  if (!retryAfter) return null;
  if (/^\d+(\.\d+)?$/.test(retryAfter)) return Math.round(Number.parseFloat(retryAfter) * 1000);
  const date = Date.parse(retryAfter);
  return Number.isNaN(date) ? null : Math.max(0, date - nowMs);
}

export function badResponse(provider: string, what: string): UpstreamError {
  return new UpstreamError('bad_response', `The provider "${provider}" answered with ${what}.`, { retryable: true });
}

/** Removes the provider key (and any long prefix of it) from a text. */
export function redact(text: string, secret: string): string {
  if (!secret || secret.length < 4) return text;
  let result = text.split(secret).join('[redacted]');
  // Providers often quote a shortened key ("sk-abc...xyz"): drop any 8+ character fragment of it.
  for (let length = Math.min(secret.length - 1, 24); length >= 8; length--) {
    for (let start = 0; start + length <= secret.length; start += 4) {
      const fragment = secret.slice(start, start + length);
      if (result.includes(fragment)) result = result.split(fragment).join('[redacted]');
    }
  }
  return result;
}
