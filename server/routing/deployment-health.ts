import type { UpstreamError } from '../errors/gateway-error';
import type { DeploymentConfig } from '../config/deployments';

/**
 * What this instance knows of each deployment's health (docs/routing.md, "Health and
 * cooldown"): its cooldown, whether the operator disabled it, the calls in flight, the requests
 * and errors of the last minutes, and the requests and tokens of the current minute against its
 * own rpm/tpm. Everything is read from memory on the request path; the cooldowns and disables
 * of other instances arrive through `SharedRoutingState` (Redis) and are applied here.
 */

export interface CooldownPolicy {
  /** The first cooldown without a retry-after; doubled per consecutive failure. */
  baseMs: number;
  /** The longest cooldown, a retry-after included. */
  maxMs: number;
}

/** Told of this instance's own changes so that other instances learn them (Redis). */
export interface HealthBroadcast {
  cooled(id: string, untilMs: number): void;
  healed(id: string): void;
}

interface Cooldown {
  untilMs: number;
  /** Consecutive failures: the exponent of the next cooldown without a retry-after. */
  failures: number;
}

/** Requests and errors per minute, the last RECENT_MINUTES of them. */
const RECENT_MINUTES = 5;
const MINUTE_MS = 60_000;

interface Counters {
  inFlight: number;
  /** Ring of per-minute counts, indexed by minute modulo RECENT_MINUTES. */
  minutes: number[];
  requests: number[];
  errors: number[];
  /** The current minute's load against the deployment's own rpm/tpm. */
  loadMinute: number;
  loadRequests: number;
  loadTokens: number;
}

function newCounters(): Counters {
  return {
    inFlight: 0,
    minutes: new Array<number>(RECENT_MINUTES).fill(-1),
    requests: new Array<number>(RECENT_MINUTES).fill(0),
    errors: new Array<number>(RECENT_MINUTES).fill(0),
    loadMinute: -1,
    loadRequests: 0,
    loadTokens: 0,
  };
}

/**
 * Whether an upstream failure is the deployment's rather than the caller's: 429, 5xx, 408,
 * timeouts, refused connections and 401/403 (its own key) cool it; a caller's 4xx never does.
 */
export function coolsDeployment(error: UpstreamError): boolean {
  return error.kind === 'unavailable' || error.kind === 'timeout';
}

export class DeploymentHealth {
  private readonly cooldowns = new Map<string, Cooldown>();
  private readonly disabled = new Set<string>();
  private readonly counters = new Map<string, Counters>();
  broadcast: HealthBroadcast | null = null;

  constructor(
    private readonly policy: CooldownPolicy,
    readonly now: () => number,
  ) {}

  isDisabled(id: string): boolean {
    return this.disabled.size > 0 && this.disabled.has(id);
  }

  /** Epoch ms the deployment's cooldown ends; 0 when it is not cooling down. */
  coolingUntil(id: string): number {
    if (this.cooldowns.size === 0) return 0;
    const cooldown = this.cooldowns.get(id);
    return cooldown !== undefined && cooldown.untilMs > this.now() ? cooldown.untilMs : 0;
  }

  /**
   * A failed call: counted; a failure of the deployment's own (`coolsDeployment`) starts or
   * extends its cooldown, never shortens it. Returns whether it cooled the deployment.
   */
  failed(id: string, error: UpstreamError): boolean {
    this.count(id).errors[this.minuteSlot(id)]! += 1;
    if (!coolsDeployment(error)) return false;
    const now = this.now();
    const previous = this.cooldowns.get(id);
    const failures = (previous?.failures ?? 0) + 1;
    const wait =
      error.retryAfterMs !== null && error.retryAfterMs > 0
        ? Math.min(error.retryAfterMs, this.policy.maxMs)
        : Math.min(this.policy.baseMs * 2 ** Math.min(failures - 1, 30), this.policy.maxMs);
    const untilMs = Math.max(previous?.untilMs ?? 0, now + wait);
    this.cooldowns.set(id, { untilMs, failures });
    this.broadcast?.cooled(id, untilMs);
    return true;
  }

  /** An answer: the deployment is healthy again. */
  succeeded(id: string): void {
    if (this.cooldowns.size === 0 || !this.cooldowns.delete(id)) return;
    this.broadcast?.healed(id);
  }

  /** Another instance's cooldown (or the one stored in Redis at start): kept when it ends later. */
  applyCooldown(id: string, untilMs: number): void {
    const previous = this.cooldowns.get(id);
    if (previous && previous.untilMs >= untilMs) return;
    this.cooldowns.set(id, { untilMs, failures: previous?.failures ?? 1 });
  }

  /** Another instance saw the deployment answer. */
  applyHealed(id: string): void {
    this.cooldowns.delete(id);
  }

  setDisabled(id: string, disabled: boolean): void {
    if (disabled) this.disabled.add(id);
    else this.disabled.delete(id);
  }

  /** The deployments disabled, as a set loaded from the database replaces them. */
  replaceDisabled(ids: Iterable<string>): void {
    this.disabled.clear();
    for (const id of ids) this.disabled.add(id);
  }

  /** A call to the deployment starts: in flight until `ended`; counted in its requests. */
  started(id: string): void {
    const counters = this.count(id);
    counters.inFlight += 1;
    counters.requests[this.minuteSlot(id)]! += 1;
  }

  ended(id: string): void {
    const counters = this.counters.get(id);
    if (counters && counters.inFlight > 0) counters.inFlight -= 1;
  }

  inFlight(id: string): number {
    return this.counters.get(id)?.inFlight ?? 0;
  }

  /** Whether the deployment's own rpm/tpm leave room for a call of `tokens` this minute (this instance's share). */
  hasRoom(deployment: DeploymentConfig, tokens: number): boolean {
    if (deployment.rpm === null && deployment.tpm === null) return true;
    const counters = this.loadOf(deployment.id);
    if (deployment.rpm !== null && counters.loadRequests >= deployment.rpm) return false;
    return deployment.tpm === null || counters.loadTokens + tokens <= deployment.tpm || counters.loadTokens === 0;
  }

  /** The call chosen for a deployment with its own limits: counted against them. */
  take(deployment: DeploymentConfig, tokens: number): void {
    if (deployment.rpm === null && deployment.tpm === null) return;
    const counters = this.loadOf(deployment.id);
    counters.loadRequests += 1;
    counters.loadTokens += tokens;
  }

  /** Requests and errors of the last five minutes (this instance's). */
  recent(id: string): { requests: number; errors: number } {
    const counters = this.counters.get(id);
    if (!counters) return { requests: 0, errors: 0 };
    const minute = Math.floor(this.now() / MINUTE_MS);
    let requests = 0;
    let errors = 0;
    for (let slot = 0; slot < RECENT_MINUTES; slot++) {
      if (minute - counters.minutes[slot]! < RECENT_MINUTES) {
        requests += counters.requests[slot]!;
        errors += counters.errors[slot]!;
      }
    }
    return { requests, errors };
  }

  private count(id: string): Counters {
    let counters = this.counters.get(id);
    if (!counters) {
      counters = newCounters();
      this.counters.set(id, counters);
    }
    return counters;
  }

  /** The ring slot of the current minute, cleared when it held an older minute. */
  private minuteSlot(id: string): number {
    const counters = this.count(id);
    const minute = Math.floor(this.now() / MINUTE_MS);
    const slot = minute % RECENT_MINUTES;
    if (counters.minutes[slot] !== minute) {
      counters.minutes[slot] = minute;
      counters.requests[slot] = 0;
      counters.errors[slot] = 0;
    }
    return slot;
  }

  private loadOf(id: string): Counters {
    const counters = this.count(id);
    const minute = Math.floor(this.now() / MINUTE_MS);
    if (counters.loadMinute !== minute) {
      counters.loadMinute = minute;
      counters.loadRequests = 0;
      counters.loadTokens = 0;
    }
    return counters;
  }
}
