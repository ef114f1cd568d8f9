import { UpstreamError } from '../../errors/gateway-error';
import { readErrorText } from '../transport-errors';
import type { HttpResponse } from '../types';
import { parseJson, parseRetryAfterMs, redact, upstreamStatusError } from '../upstream-errors';
import { OpenAiErrorBodySchema } from './openai-schemas';

/** The provider's own message from an error body, or null when it has none we can read. */
export function openAiErrorMessage(value: unknown): string | null {
  const parsed = OpenAiErrorBodySchema.safeParse(value);
  if (!parsed.success) return null;
  const body = parsed.data;
  if ('error' in body) return typeof body.error === 'string' ? body.error : (body.error.message ?? null);
  if ('message' in body) return body.message;
  return body.detail;
}

/** A non-2xx reply -> the gateway's error (docs/errors.md), reading the body for the message. */
export async function openAiStatusError(response: HttpResponse, provider: string, apiKey: string, nowMs: number): Promise<UpstreamError> {
  const json = parseJson(await readErrorText(response));
  const message = json.ok ? openAiErrorMessage(json.value) : null;
  return upstreamStatusError(provider, response.status, message, apiKey, parseRetryAfterMs(response.headers, nowMs));
}

/**
 * A `data: {"error": …}` event after a 2xx start (vLLM, TGI, OpenRouter and OpenAI itself send
 * these when generation fails midway). A numeric `code` in the HTTP range is read as a status;
 * otherwise it is an unavailable upstream, with the provider's (redacted) words.
 */
export function openAiStreamError(value: unknown, provider: string, apiKey: string): UpstreamError {
  const parsed = OpenAiErrorBodySchema.safeParse(value);
  const message = openAiErrorMessage(value);
  const code = parsed.success && 'error' in parsed.data && typeof parsed.data.error === 'object' ? parsed.data.error.code : null;
  const status = typeof code === 'number' ? code : Number.parseInt(code ?? '', 10);
  if (Number.isInteger(status) && status >= 400 && status <= 599) return upstreamStatusError(provider, status, message, apiKey);
  const detail = message ? `: ${redact(message, apiKey).slice(0, 2000)}` : '.';
  return new UpstreamError('unavailable', `The provider "${provider}" failed during the stream${detail}`, { retryable: true });
}

/** Whether a parsed SSE payload is an error event rather than a chunk. */
export function isErrorEvent(value: unknown): boolean {
  return typeof value === 'object' && value !== null && 'error' in value && value.error != null;
}
