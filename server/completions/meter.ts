import type { BudgetGuard, BudgetReservation } from '../budgets/budget-guard';
import { worstCaseCostFemtoUsd } from '../budgets/worst-case-cost';
import type { Config, ModelConfig } from '../config/load-config';
import { GatewayError, rateLimited, usageUnavailable } from '../errors/gateway-error';
import { effectiveLimits } from '../keys/key-access';
import type { CachedApiKey } from '../keys/key-cache';
import type { GatewayMetrics } from '../metrics/gateway-metrics';
import type { ClientConnection } from '../pipeline/reply';
import type { RequestContext, UsageOutcome } from '../pipeline/request-context';
import type { TokenUsage } from '../providers/types';
import type { createKeyLimiter, Reservation, ReservationFields } from '../rate-limit/key-limiter';
import type { StreamLimiter } from '../rate-limit/stream-limiter';
import { billedUsage, femtoToUsdText, requestCostFemtoUsd } from '../usage/cost';
import { toGatewayError } from './to-gateway-error';
import { INTERRUPTED_CODE, INTERRUPTED_STATUS, recordOnly, type InFlightUsage, type UsageDurability } from '../usage/durability';
import type { UsageEvent, UsageSink } from '../usage/types';
import type { RouteChoice } from '../routing/deployment-router';

export interface MeterDependencies {
  limiter: ReturnType<typeof createKeyLimiter>;
  usage: UsageSink;
  /** The usage journal (docs/usage-durability.md); without it events go to `usage` only. */
  durability?: UsageDurability | undefined;
  limits: Config['limits'];
  metrics: GatewayMetrics;
  now: () => number;
  /** Spend budgets (docs/operator-controls.md); absent = none enforced. */
  budgets?: BudgetGuard | undefined;
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
 * A call's outcome with the usage's fields written out: the call sites run once a request,
 * and `{ model, ...usage, status }` leaves V8's fast path (docs/performance.md, "Speed tricks
 * in the code").
 */
export function meterOutcome(
  model: ModelConfig,
  usage: TokenUsage,
  estimated: boolean,
  status: number,
  errorCode: string | null,
): MeterOutcome {
  return {
    model,
    promptTokens: usage.promptTokens,
    completionTokens: usage.completionTokens,
    cachedTokens: usage.cachedTokens,
    cacheWriteTokens: usage.cacheWriteTokens,
    cacheWrite1hTokens: usage.cacheWrite1hTokens,
    reasoningTokens: usage.reasoningTokens,
    estimated,
    status,
    errorCode,
  };
}

type EventBase = Pick<UsageEvent, 'requestId' | 'accountId' | 'keyId' | 'receivedAt' | 'stream'>;

/**
 * One metered model call: the rate-limit reservation before it (docs/rate-limits.md: tokens are
 * reserved, then reconciled) and exactly one usage event after it, whatever the outcome
 * (docs/usage-report.md: a request counts once, on the day it was received), made durable
 * before the reply ends (docs/usage-durability.md).
 */
export class Meter {
  private finished = false;
  private lastCheckpoint: number;
  /** Read by the access log of a stream cut short, which waits for it to report its tokens. */
  private readonly outcome: UsageOutcome = { settled: false, onSettled: null };

  private constructor(
    private readonly dependencies: MeterDependencies,
    private readonly key: CachedApiKey,
    private readonly base: EventBase,
    private readonly reservation: Reservation,
    private readonly context: RequestContext,
    private readonly inFlight: InFlightUsage,
    private readonly budget: BudgetReservation | null,
  ) {
    context.usageOutcome = this.outcome;
    this.lastCheckpoint = base.receivedAt;
  }

  private markRecorded(): void {
    this.outcome.settled = true;
    this.outcome.onSettled?.();
  }

  /** Reserves capacity or throws the 429 with its headers; on success the rate-limit headers go to the context. */
  static async open(
    dependencies: MeterDependencies,
    input: {
      key: CachedApiKey;
      requestId: string;
      receivedAt: number;
      stream: boolean;
      reserveTokens: number;
      context: RequestContext;
      /** The requested model and the prompt estimate: billed if the process dies during the call. */
      model: ModelConfig;
      promptTokens: number;
      /** The fields a request over a whole budget names (400); default messages / max_tokens. */
      fields?: ReservationFields;
      /** A stream's slot (`limits.max_streams_per_key`), held until the client's response closes. */
      streamSlot?: { streams: StreamLimiter; client: ClientConnection } | null;
    },
  ): Promise<Meter> {
    // docs/usage-durability.md: a call whose usage could not be made durable is not served.
    if (dependencies.durability && !dependencies.durability.available()) throw usageUnavailable();
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
    const budget = await reserveBudget(dependencies, input, reservation);
    const base: EventBase = {
      requestId: input.requestId,
      accountId: input.key.accountId,
      keyId: input.key.id,
      receivedAt: input.receivedAt,
      stream: input.stream,
    };
    const inFlight = dependencies.durability
      ? dependencies.durability.begin(
          interruptedEvent(base, input.model, null, { promptTokens: input.promptTokens, completionTokens: 0 }, 0),
        )
      : recordOnly(dependencies.usage);
    const meter = new Meter(dependencies, input.key, base, reservation, input.context, inFlight, budget);
    if (input.streamSlot) holdStreamSlot(input.streamSlot.streams, meter, input.key, input.context, input.streamSlot.client);
    return meter;
  }

  /**
   * A stream's tokens so far, billed if the process dies before it ends: journaled at most
   * once a second (`tokens` runs only then), and only when there is a journal.
   */
  checkpoint(model: ModelConfig, tokens: () => TokenUsage): void {
    if (this.finished || this.dependencies.durability === undefined) return;
    const now = this.dependencies.now();
    if (now - this.lastCheckpoint < CHECKPOINT_MS) return;
    this.lastCheckpoint = now;
    this.inFlight.checkpoint(interruptedEvent(this.base, model, this.context.routeChoice, tokens(), now - this.base.receivedAt));
  }

  /**
   * Records the usage event and settles the reservation. Only the first call counts. Resolves
   * once the event would survive the process dying: the reply's last bytes wait for it
   * (docs/usage-durability.md); rejects with 503 usage_unavailable when it cannot be made so.
   */
  finish(outcome: MeterOutcome): Promise<void> {
    if (this.finished) return DURABLE;
    this.finished = true;
    // docs/routing.md: the answering deployment's call is no longer in flight.
    this.context.routeChoice?.done();
    const { model } = outcome;
    const cost = requestCostFemtoUsd(model.pricing, outcome);
    // A non-streamed reply is not sent yet: its cost goes in a header (a stream's in its usage chunk).
    if (!this.base.stream && outcome.status === 200) this.context.addHeaders({ [COST_HEADER]: femtoToUsdText(cost) });
    const latencyMs = this.dependencies.now() - this.base.receivedAt;
    // docs/routing.md: the deployment that answered, and its provider; none when no upstream answered.
    const route = this.context.routeChoice;
    const deployment = route === null ? null : route.deployment;
    const provider = route === null || route.provider === null ? model.provider : route.provider;
    const event = usageEvent(this.base, model, provider, deployment, outcome, cost, latencyMs);
    const durable = this.inFlight.finish(event);
    // docs/request-log.md: the request's record carries this event's tokens and cost, to the digit.
    this.context.usage = event;
    if (this.budget && this.dependencies.budgets) settleInBackground(this.dependencies.budgets.settle(this.budget, cost));
    settleInBackground(this.dependencies.limiter.settle(this.reservation, outcome.promptTokens + outcome.completionTokens));
    // Label objects written out: `{ ...labels, type }` leaves V8's fast path (a spread followed
    // by more properties, docs/performance.md); these run on every request.
    const { tokens } = this.dependencies.metrics;
    if (outcome.promptTokens > 0) tokens.inc({ model: model.id, provider, type: 'prompt' }, outcome.promptTokens);
    if (outcome.completionTokens > 0) tokens.inc({ model: model.id, provider, type: 'completion' }, outcome.completionTokens);
    this.context.promptTokens = outcome.promptTokens;
    this.context.completionTokens = outcome.completionTokens;
    this.markRecorded();
    const settled = durable.catch(rethrowUnavailable);
    // The callers that wait get the rejection; for those that do not (a failed call, a stream
    // cut short) it must not be an unhandled one: a journal that cannot write refuses the next
    // calls anyway (`available()`, checked in `open`).
    settled.catch(ignoreUnwaitedRejection);
    return settled;
  }

  /**
   * The gateway refused the call after reserving (e.g. too many open streams): refunds the
   * reserved tokens and records no usage (a request refused by the gateway is not counted).
   */
  cancel(): void {
    if (this.finished) return;
    this.finished = true;
    this.inFlight.cancel();
    settleInBackground(this.dependencies.limiter.settle(this.reservation, 0));
    if (this.budget && this.dependencies.budgets) settleInBackground(this.dependencies.budgets.settle(this.budget, 0n));
    this.markRecorded();
  }

  failed(model: ModelConfig, error: GatewayError): void {
    // The reply is the error's: nothing waits for the event, and `finish` handles its own rejection.
    void this.finish({ model, promptTokens: 0, completionTokens: 0, estimated: false, status: error.status, errorCode: error.code });
  }

  /** A model call that threw `error`: recorded as `failed` records it; returns the GatewayError the client gets. */
  callFailed(model: ModelConfig, error: unknown, requestId: string, aborted: boolean): GatewayError {
    const gatewayError = toGatewayError(error, requestId, aborted);
    this.failed(model, gatewayError);
    return gatewayError;
  }
}

/**
 * `limits.max_streams_per_key`: a slot for the life of the response (released on close,
 * which every response reaches exactly once, however it ends), or 429 with `retry-after: 1`.
 */
function holdStreamSlot(streams: StreamLimiter, meter: Meter, key: CachedApiKey, context: RequestContext, client: ClientConnection): void {
  const release = streams.acquire(key.id);
  if (release === null) {
    meter.cancel();
    context.rateLimitExceeded = 'streams';
    throw rateLimited(
      `Too many concurrent streams for this API key (at most ${streams.maxPerKey} at once); wait for one to finish, or retry after the time in retry-after.`,
      { 'retry-after': '1' },
    );
  }
  client.onClose(release);
}

const DURABLE: Promise<void> = Promise.resolve();

/**
 * docs/operator-controls.md, spend budgets: reserves the request's worst-case cost in the key's
 * and the account's budgets (nothing for a request that reserves no tokens, e.g. count_tokens);
 * a refusal gives back the rate-limit reservation. The remaining-budget header goes on every reply.
 */
async function reserveBudget(
  dependencies: MeterDependencies,
  input: Parameters<typeof Meter.open>[1],
  reservation: Reservation,
): Promise<BudgetReservation | null> {
  if (!dependencies.budgets || input.reserveTokens <= 0) return null;
  // The hot path of a key without budgets: nothing to price.
  if (input.key.budget === null && input.key.accountBudget === null) return null;
  const pricing = input.model.pricing;
  const worst = worstCaseCostFemtoUsd(pricing, input.promptTokens, input.reserveTokens - input.promptTokens);
  const promptWorst = worstCaseCostFemtoUsd(pricing, input.promptTokens, 0);
  try {
    const granted = await dependencies.budgets.reserve(input.key, input.receivedAt, worst, promptWorst, input.fields ?? DEFAULT_FIELDS);
    input.context.addHeaders(granted.headers);
    return granted.reservation;
  } catch (error) {
    settleInBackground(dependencies.limiter.settle(reservation, 0));
    if (error instanceof GatewayError && error.status === 429) input.context.rateLimitExceeded = 'budget';
    throw error;
  }
}

const DEFAULT_FIELDS: ReservationFields = { prompt: 'messages', completion: 'max_tokens' };
/** A stream's checkpoint is journaled at most this often (docs/usage-durability.md). */
const CHECKPOINT_MS = 1_000;

/**
 * Settling a reservation (docs/rate-limits.md, "Reservation and reconciliation"; the spend
 * budgets of docs/operator-controls.md) is off the response path: the reply never waits for it.
 * It fails only while Redis is down under `limits.redis_failure: closed` (under `open` it
 * settles in the instance's own buckets and counters), and the breaker has logged that outage
 * (docs/rate-limits.md). The reservation then stands as taken: the rate-limit bucket refills
 * within its window, and a budget counter keeps the worst case until it is seeded again from
 * the ledger. Nothing is retried.
 */
function settleInBackground(settlement: Promise<void>): void {
  settlement.catch(ignoreSettlementFailure);
}

const ignoreSettlementFailure = (): void => undefined;
const ignoreUnwaitedRejection = (): void => undefined;

function rethrowUnavailable(error: unknown): never {
  throw usageUnavailable(error);
}

/** What a call is billed if the process dies before it ends: 499 interrupted, the tokens known so far. */
function interruptedEvent(
  base: EventBase,
  model: ModelConfig,
  route: RouteChoice | null,
  usage: TokenUsage,
  latencyMs: number,
): UsageEvent {
  const cost = requestCostFemtoUsd(model.pricing, usage);
  const outcome = meterOutcome(model, usage, true, INTERRUPTED_STATUS, INTERRUPTED_CODE);
  const provider = route === null || route.provider === null ? model.provider : route.provider;
  return usageEvent(base, model, provider, route === null ? null : route.deployment, outcome, cost, latencyMs);
}

/**
 * One call's usage event, every field written out: spreading the base and the billed parts
 * into a literal with more properties leaves V8's fast path (docs/performance.md, "Speed
 * tricks in the code"), and this runs once or twice a request.
 * `promptTokens` and `completionTokens` are the totals as reported, the parts as billed.
 */
function usageEvent(
  base: EventBase,
  model: ModelConfig,
  provider: string,
  deployment: string | null,
  outcome: MeterOutcome,
  costFemtoUsd: bigint,
  latencyMs: number,
): UsageEvent {
  const usage = outcome;
  const billed = billedUsage(usage);
  return {
    requestId: base.requestId,
    accountId: base.accountId,
    keyId: base.keyId,
    receivedAt: base.receivedAt,
    stream: base.stream,
    model: model.id,
    provider,
    deployment,
    promptTokens: usage.promptTokens,
    completionTokens: usage.completionTokens,
    cachedTokens: billed.cachedTokens,
    cacheWriteTokens: billed.cacheWriteTokens,
    cacheWrite1hTokens: billed.cacheWrite1hTokens,
    reasoningTokens: billed.reasoningTokens,
    costFemtoUsd,
    estimated: outcome.estimated,
    status: outcome.status,
    errorCode: outcome.errorCode,
    latencyMs,
  };
}
