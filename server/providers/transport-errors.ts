import { errors as undiciErrors } from 'undici';
import { UpstreamError } from '../errors/gateway-error';
import type { HttpResponse } from './types';

/** One place that turns transport failures into UpstreamErrors (docs/errors.md: 502/504). */
export function toUpstreamError(error: unknown): UpstreamError | Error {
  if (error instanceof UpstreamError) return error;
  if (isAbortError(error)) return error as Error;
  if (
    error instanceof undiciErrors.HeadersTimeoutError ||
    error instanceof undiciErrors.BodyTimeoutError ||
    error instanceof undiciErrors.ConnectTimeoutError
  ) {
    return new UpstreamError('timeout', 'The model provider did not answer in time.', { retryable: true, cause: error });
  }
  return new UpstreamError('unavailable', 'The model provider could not be reached.', { retryable: true, cause: error });
}

/**
 * The body of an error reply as text, for the provider's message: '' when it cannot be read
 * (the status alone still says what happened); only an abort is passed on as such.
 */
export async function readErrorText(response: HttpResponse): Promise<string> {
  try {
    return await response.text();
  } catch (error) {
    if (isAbortError(error)) throw error;
    return '';
  }
}

export function isAbortError(error: unknown): boolean {
  return (
    error instanceof Error &&
    (error.name === 'AbortError' ||
      (error as { code?: string }).code === 'UND_ERR_ABORTED' ||
      error instanceof undiciErrors.RequestAbortedError)
  );
}
