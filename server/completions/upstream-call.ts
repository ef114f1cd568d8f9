import type { Config } from '../config/load-config';
import type { ClientConnection } from '../pipeline/reply';
import type { RequestContext } from '../pipeline/request-context';
import { CallAbort, type CallSignal } from '../providers/call-signal';
import type { RetryOptions } from '../providers/call-with-fallbacks';
import type { Attempt } from './resolve-model';

/**
 * The upstream side of one model call, as every route sets it up: its cancellation, the retry
 * policy of the config's `upstream` section (docs/configuration.md), the call options adapters
 * take, and, until `release`, the client going away cancelling the upstream work too.
 */
export class UpstreamCall {
  readonly controller = new CallAbort();
  readonly retry: RetryOptions<Attempt>;
  readonly options: { signal: CallSignal; requestId: string };
  private readonly onEarlyClose = () => this.controller.abort();

  constructor(
    upstream: Config['upstream'],
    context: Pick<RequestContext, 'requestId' | 'upstreamAttempts' | 'routeChoice'>,
    private readonly client: ClientConnection,
  ) {
    const route = context.routeChoice;
    this.retry = {
      maxRetries: upstream.maxRetries,
      baseDelayMs: upstream.retryBaseDelayMs,
      signal: this.controller.signal,
      // docs/routing.md: a model's deployments are tried in turn before its fallbacks.
      groupOf: (attempt) => attempt.model,
      onAttempt: (attempt) => {
        // docs/request-log.md: the retries and fallbacks a request took.
        context.upstreamAttempts += 1;
        route?.started(attempt);
      },
      // docs/routing.md, "Health and cooldown": what each deployment's calls did.
      onFailure: route ? (attempt, error) => route.failed(attempt, error) : undefined,
      onSuccess: route ? (attempt) => route.succeeded(attempt) : undefined,
    };
    this.options = { signal: this.controller.signal, requestId: context.requestId };
    client.onClose(this.onEarlyClose);
  }

  /** The reply has started or the call is over: the client's close no longer cancels through here. */
  release(): void {
    this.client.offClose(this.onEarlyClose);
  }
}
