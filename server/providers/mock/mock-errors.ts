import { UpstreamError } from '../../errors/gateway-error';

/**
 * Inputs that make the mock provider fail on purpose, for tests and for trying retries and
 * fallbacks by hand. They act when the last user message (or, for embeddings, any input) is
 * exactly one of:
 * - `mock:error:500`       an unavailable upstream (HTTP 500), retryable;
 * - `mock:error:timeout`   an upstream timeout, retryable;
 * - `mock:error:400`       the upstream rejects the request (not retried, no fallback);
 * - `mock:error:midstream` a stream yields two chunks, then fails (retryable error from the
 *                          iterator); a non-streamed call fails like `mock:error:500`.
 */
export type MockTrigger = 'error_500' | 'error_timeout' | 'error_400' | 'error_midstream';

const TRIGGERS: Readonly<Record<string, MockTrigger>> = {
  'mock:error:500': 'error_500',
  'mock:error:timeout': 'error_timeout',
  'mock:error:400': 'error_400',
  'mock:error:midstream': 'error_midstream',
};

export function mockTrigger(text: string | null): MockTrigger | null {
  return text !== null && Object.hasOwn(TRIGGERS, text) ? (TRIGGERS[text] ?? null) : null;
}

/** The error a trigger raises before any reply; null for triggers that fail later (midstream, when streaming). */
export function triggerError(provider: string, trigger: MockTrigger | null, streaming: boolean): UpstreamError | null {
  switch (trigger) {
    case 'error_500':
      return new UpstreamError('unavailable', `The provider "${provider}" is unavailable (HTTP 500).`, {
        retryable: true,
        upstreamStatus: 500,
      });
    case 'error_timeout':
      return new UpstreamError('timeout', `The provider "${provider}" timed out.`, { retryable: true });
    case 'error_400':
      return new UpstreamError('rejected', `The provider "${provider}" rejected the request: mock rejection.`, {
        retryable: false,
        upstreamStatus: 400,
      });
    case 'error_midstream':
      return streaming ? null : triggerError(provider, 'error_500', false);
    default:
      return null;
  }
}

export function midstreamError(provider: string): UpstreamError {
  return new UpstreamError('unavailable', `The provider "${provider}" dropped the stream.`, { retryable: true });
}
