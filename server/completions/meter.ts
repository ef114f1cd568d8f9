import type { Config, ModelConfig } from '../config/load-config';
import { rateLimited, type GatewayError } from '../errors/gateway-error';
import { effectiveLimits } from '../keys/key-access';
import type { CachedApiKey } from '../keys/key-cache';
import type { GatewayMetrics } from '../metrics/gateway-metrics';
import type { RequestContext, UsageOutcome } from '../pipeline/request-context';
import type { createKeyLimiter, Reservation } from '../rate-limit/key-limiter';
import type { TokenUsage } from '../providers/types';
import { billedUsage, femtoToUsdText, requestCostFemtoUsd } from '../usage/cost';
import type { UsageSink } from '../usage/types';

export interface MeterDependencies {
  limiter: ReturnType<typeof createKeyLimiter>;
  usage: UsageSink;
  limits: Config['limits'];
  metrics: GatewayMetrics;
  now: () => number;
}

/** The response header of a non-streamed reply's cost (docs/pricing.md). */
export const COST_HEADER = 'x-gateway-cost-usd';

/** A request's cost in USD for the client (a stream's usage chunk `cost_usd`); the same price the usage event records. */
export function costUsd(model: ModelConfig, usage: TokenUsage): number {
  return Number(femtoToUsdText(requestCostFemtoUsd(model.pricing, usage)));
}

export interface MeterOutcome extends TokenUsage {
  /** The catalogue model that answered, or the requested one when none did. */
  model: ModelConfig;
  estimated: boolean;
  status: number;
  errorCode: string | null;
}

/**
 * One metered model call: the rate-limit reservation before it (docs/rate-limits.md: tokens are
 * reserved, then reconciled) and exactly one usage event after it, whatever the outcome
 * (docs/usage-report.md: a request counts once, on the day it was received).
 */
export class Meter {
  private finished = false;
  /** Read by the access log of a stream cut short, which waits for it to report its tokens. */
  private readonly outcome: UsageOutcome = { settled: false, onSettled: null };

  private constructor(
    private readonly dependencies: MeterDependencies,
    private readonly key: CachedApiKey,
    private readonly requestId: string,
    private readonly receivedAt: number,
    private readonly stream: boolean,
    private readonly reservation: Reservation,
    private readonly context: RequestContext,
  ) {
    context.usageOutcome = this.outcome;
  }

  private markRecorded(): void {
    this.outcome.settled = true;
    this.outcome.onSettled?.();
  }

  /** Reserves capacity or throws the 429 with its headers; on success the rate-limit headers go to the context. */
  static async open(
    dependencies: MeterDependencies,
    input: { key: CachedApiKey; requestId: string; receivedAt: number; stream: boolean; reserveTokens: number; context: RequestContext },
  ): Promise<Meter> {
    const limits = effectiveLimits(input.key, dependencies.limits);
    const reservation = await dependencies.limiter.reserve(input.key.id, limits, input.reserveTokens);
    if (!reservation.allowed) {
      input.context.rateLimitExceeded = reservation.exceeded ?? 'requests';
      if (reservation.tooLarge) {
        throw rateLimited(
          `Request too large: it may use up to ${input.reserveTokens} tokens (prompt + max_tokens), more than this key's ` +
            `limit of ${limits.tpm} tokens per minute. Lower max_tokens or shorten the prompt.`,
          reservation.headers,
        );
      }
      const which = reservation.exceeded === 'tokens' ? `tokens per minute (${limits.tpm})` : `requests per minute (${limits.rpm})`;
      throw rateLimited(`Rate limit exceeded: ${which} for this API key. Retry after the time in retry-after.`, reservation.headers);
    }
    // docs/rate-limits.md: on every reply to the request from here on, errors included.
    input.context.addHeaders(reservation.headers);
    return new Meter(dependencies, input.key, input.requestId, input.receivedAt, input.stream, reservation, input.context);
  }

  /** Records the usage event and settles the reservation. Only the first call counts. */
  finish(outcome: MeterOutcome): void {
    if (this.finished) return;
    this.finished = true;
    const { model } = outcome;
    const cost = requestCostFemtoUsd(model.pricing, outcome);
    const parts = billedUsage(outcome);
    // A non-streamed reply is not sent yet: its cost goes in a header (a stream's in its usage chunk).
    if (!this.stream && outcome.status === 200) this.context.addHeaders({ [COST_HEADER]: femtoToUsdText(cost) });
    this.dependencies.usage.record({
      requestId: this.requestId,
      accountId: this.key.accountId,
      keyId: this.key.id,
      model: model.id,
      provider: model.provider,
      receivedAt: this.receivedAt,
      promptTokens: outcome.promptTokens,
      completionTokens: outcome.completionTokens,
      cachedTokens: parts.cachedTokens,
      cacheWriteTokens: parts.cacheWriteTokens,
      cacheWrite1hTokens: parts.cacheWrite1hTokens,
      reasoningTokens: parts.reasoningTokens,
      costFemtoUsd: cost,
      estimated: outcome.estimated,
      stream: this.stream,
      status: outcome.status,
      errorCode: outcome.errorCode,
      latencyMs: this.dependencies.now() - this.receivedAt,
    });
    // Reconciliation is off the response path: a failure here only skews the next window.
    this.dependencies.limiter.settle(this.reservation, outcome.promptTokens + outcome.completionTokens).catch(() => undefined);
    // Label objects written out: `{ ...labels, type }` costs V8 (Node 20) ~0.8 µs per object
    // (a spread followed by more properties leaves its fast path); these run on every request.
    const { tokens } = this.dependencies.metrics;
    if (outcome.promptTokens > 0) tokens.inc({ model: model.id, provider: model.provider, type: 'prompt' }, outcome.promptTokens);
    if (outcome.completionTokens > 0) tokens.inc({ model: model.id, provider: model.provider, type: 'completion' }, outcome.completionTokens);
    this.context.promptTokens = outcome.promptTokens;
    this.context.completionTokens = outcome.completionTokens;
    this.markRecorded();
  }

  /**
   * The gateway refused the call after reserving (e.g. too many open streams): refunds the
   * reserved tokens and records no usage (a request refused by the gateway is not counted).
   */
  cancel(): void {
    if (this.finished) return;
    this.finished = true;
    this.dependencies.limiter.settle(this.reservation, 0).catch(() => undefined);
    this.markRecorded();
  }

  failed(model: ModelConfig, error: GatewayError): void {
    this.finish({ model, promptTokens: 0, completionTokens: 0, estimated: false, status: error.status, errorCode: error.code });
  }
}
