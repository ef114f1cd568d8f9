import { UpstreamError } from '../errors/gateway-error';
import type { Attempt } from '../completions/resolve-model';
import type { DeploymentHealth } from './deployment-health';
import { rendezvousPick, SessionBindings, stablePrefix } from './session-affinity';

/**
 * The choice of deployments, made once per call in the admission step (docs/routing.md): for
 * each model of the call (the requested one, then its fallbacks), its deployments in the order
 * to try them. The first is the session's bound deployment when it is available, else the
 * strategy's pick among the available ones of the best priority; then the other available ones;
 * then those cooling down, the one whose cooldown ends first first. Disabled ones are left out.
 */

export interface RouteRequest {
  keyId: string;
  /** The session the request belongs to (`sessionOf`), null when it names none. */
  session: string | null;
  /** For `affinity: prefix`: the prompt's stable prefix is read from it. */
  body: unknown;
  /** The call's reservation (prompt estimate and reply bound), counted against a deployment's own tpm. */
  tokens: number;
}

/** The routing's metrics (docs/routing.md). */
export interface RoutingCounters {
  affinity(model: string, outcome: 'hit' | 'miss'): void;
  cooled(model: string, deployment: string): void;
}

/** One call's route: what its retry loop reports back (completions/upstream-call.ts). */
export class RouteChoice {
  /** The deployment that answered; named by `x-gateway-deployment`. */
  deployment: string | null = null;
  /** Its provider: the usage event's and the request log's. */
  provider: string | null = null;
  /** The session's scope per model id, when the call has a session. */
  scopes: Map<string, { scope: string; ttlMs: number }> | null = null;
  private released = false;

  constructor(
    private readonly router: DeploymentRouter,
    /** The request's context: told which deployment answered (`x-gateway-deployment`). */
    private readonly context: { answeredBy(deploymentId: string): void },
  ) {}

  started(attempt: Attempt): void {
    this.router.health.started(attempt.deployment.id);
  }

  failed(attempt: Attempt, error: unknown): void {
    const { health } = this.router;
    health.ended(attempt.deployment.id);
    if (error instanceof UpstreamError && health.failed(attempt.deployment.id, error)) {
      this.router.counters?.cooled(attempt.model.id, attempt.deployment.id);
    }
  }

  /** The deployment answered: in flight until the call is `done` (a stream: until its end). */
  succeeded(attempt: Attempt): void {
    const id = attempt.deployment.id;
    const { health } = this.router;
    health.succeeded(id);
    this.deployment = id;
    this.provider = attempt.deployment.provider;
    const scope = this.scopes?.get(attempt.model.id);
    if (scope) this.router.bindings.bind(scope.scope, id, scope.ttlMs);
    this.context.answeredBy(id);
  }

  /** The call is over (its usage metered): its deployment is no longer in flight. */
  done(): void {
    if (this.deployment === null || this.released) return;
    this.released = true;
    this.router.health.ended(this.deployment);
  }
}

export class DeploymentRouter {
  constructor(
    readonly health: DeploymentHealth,
    readonly bindings: SessionBindings,
    readonly counters: RoutingCounters | null = null,
    private readonly random: () => number = Math.random,
  ) {}

  /**
   * The call's attempts in the order to try them: `attempts` is the chain of deployments as
   * configured (each model's in file order, the model then its fallbacks). Returned as it is
   * when every model of it has one deployment and none is disabled.
   */
  route(attempts: readonly Attempt[], request: RouteRequest, choice: RouteChoice): readonly Attempt[] {
    let plain = true;
    for (let index = 0; index < attempts.length; index++) {
      const attempt = attempts[index]!;
      if (attempt.model.deployments.length > 1 || this.health.isDisabled(attempt.deployment.id)) {
        plain = false;
        break;
      }
    }
    if (plain) return attempts;
    const ordered: Attempt[] = [];
    for (let start = 0; start < attempts.length;) {
      let end = start + 1;
      while (end < attempts.length && attempts[end]!.model === attempts[start]!.model) end++;
      ordered.push(...this.orderModel(attempts.slice(start, end), request, choice));
      start = end;
    }
    return ordered;
  }

  /** One model's deployments in the order to try them. */
  private orderModel(deployments: Attempt[], request: RouteRequest, choice: RouteChoice): Attempt[] {
    const { health } = this;
    const enabled = deployments.filter((attempt) => !health.isDisabled(attempt.deployment.id));
    if (enabled.length <= 1) return enabled;
    const available: Attempt[] = [];
    const resting: { attempt: Attempt; until: number }[] = [];
    for (const attempt of enabled) {
      const until = health.coolingUntil(attempt.deployment.id);
      if (until === 0 && health.hasRoom(attempt.deployment, request.tokens)) available.push(attempt);
      else resting.push({ attempt, until });
    }
    resting.sort((a, b) => a.until - b.until);
    const first = this.pickFirst(available, request, choice);
    if (first) health.take(first.deployment, request.tokens);
    const rest = available.filter((attempt) => attempt !== first).sort((a, b) => a.deployment.priority - b.deployment.priority);
    return [...(first ? [first] : []), ...rest, ...resting.map((entry) => entry.attempt)];
  }

  /** The session's deployment, the prefix's, or the strategy's pick among the best priority. */
  private pickFirst(available: Attempt[], request: RouteRequest, choice: RouteChoice): Attempt | undefined {
    if (available.length === 0) return undefined;
    const model = available[0]!.model;
    const { routing } = model;
    const bestPriority = Math.min(...available.map((attempt) => attempt.deployment.priority));
    const tier = available.filter((attempt) => attempt.deployment.priority === bestPriority);
    if (routing.affinity === 'session') {
      const { session } = request;
      if (session !== null) {
        const scope = SessionBindings.scope(request.keyId, model.id, session);
        choice.scopes ??= new Map();
        choice.scopes.set(model.id, { scope, ttlMs: routing.affinityTtl * 1000 });
        const bound = this.bindings.get(scope);
        // A binding whose deployment is cooling down or disabled is not followed: the session moves once.
        const boundAttempt = bound === null ? undefined : available.find((attempt) => attempt.deployment.id === bound);
        this.counters?.affinity(model.id, boundAttempt ? 'hit' : 'miss');
        if (boundAttempt) return boundAttempt;
      }
    } else if (routing.affinity === 'prefix') {
      const prefix = stablePrefix(request.body);
      if (prefix !== null) {
        const picked = rendezvousPick(
          `${request.keyId}\u0000${prefix}`,
          tier.map((attempt) => attempt.deployment),
        );
        const attempt = tier.find((entry) => entry.deployment === picked);
        if (attempt) return attempt;
      }
    }
    return this.byStrategy(tier);
  }

  private byStrategy(tier: Attempt[]): Attempt {
    const strategy = tier[0]!.model.routing.strategy;
    if (strategy === 'priority') return tier[0]!;
    if (strategy === 'least-busy') {
      const least = Math.min(...tier.map((attempt) => this.health.inFlight(attempt.deployment.id)));
      // Ties by weight, at random: never always the first.
      return this.weighted(tier.filter((attempt) => this.health.inFlight(attempt.deployment.id) === least));
    }
    return this.weighted(tier);
  }

  private weighted(candidates: Attempt[]): Attempt {
    const total = candidates.reduce((sum, attempt) => sum + attempt.deployment.weight, 0);
    let point = this.random() * total;
    for (const attempt of candidates) {
      point -= attempt.deployment.weight;
      if (point < 0) return attempt;
    }
    return candidates[candidates.length - 1]!;
  }
}
