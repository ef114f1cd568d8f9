import type { Config } from '../config/load-config';
import type { ClientConnection } from '../pipeline/reply';
import type { RequestContext } from '../pipeline/request-context';
import { CallAbort, type CallSignal } from '../providers/call-signal';
import type { RetryOptions } from '../providers/call-with-fallbacks';

/**
 * The upstream side of one model call, as every route sets it up: its cancellation, the retry
 * policy of the config's `upstream` section (docs/configuration.md), the call options adapters
 * take, and, until `release`, the client going away cancelling the upstream work too.
 */
export class UpstreamCall {
  readonly controller = new CallAbort();
  readonly retry: RetryOptions;
  readonly options: { signal: CallSignal; requestId: string };
  private readonly onEarlyClose = () => this.controller.abort();

  constructor(
    upstream: Config['upstream'],
    context: Pick<RequestContext, 'requestId' | 'upstreamAttempts'>,
    private readonly client: ClientConnection,
  ) {
    this.retry = {
      maxRetries: upstream.maxRetries,
      baseDelayMs: upstream.retryBaseDelayMs,
      signal: this.controller.signal,
      // docs/request-log.md: the retries and fallbacks a request took.
      onAttempt: () => void (context.upstreamAttempts += 1),
    };
    this.options = { signal: this.controller.signal, requestId: context.requestId };
    client.onClose(this.onEarlyClose);
  }

  /** The reply has started or the call is over: the client's close no longer cancels through here. */
  release(): void {
    this.client.offClose(this.onEarlyClose);
  }
}
