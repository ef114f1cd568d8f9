import type { Config, ModelConfig } from '../config/load-config';
import { effectiveLimits } from '../keys/key-access';
import type { CachedApiKey } from '../keys/key-cache';
import { GatewayError } from '../errors/gateway-error';
import { checkModelAllowed } from '../keys/model-access';
import type { ClientConnection } from '../pipeline/reply';
import type { RequestContext } from '../pipeline/request-context';
import type { ProviderRegistry } from '../providers/registry';
import type { NativeMessagesApi } from '../providers/types';
import { checkReservationFits, type ReservationFields } from '../rate-limit/key-limiter';
import type { StreamLimiter } from '../rate-limit/stream-limiter';
import { RouteChoice, type DeploymentRouter } from '../routing/deployment-router';
import { Meter, type MeterDependencies } from './meter';
import { attemptsFor, resolveModel, type Attempt, type Catalogue } from './resolve-model';

/**
 * The admission step every model route runs before its upstream call (docs/architecture.md,
 * "Request path"): the model resolved, the key's allow-list, the route's own checks, the
 * reservation (requests, tokens, spend) opened as the call's meter, a stream slot. What differs
 * per route is data: the model kind, the wire format the upstream must speak, the prompt's
 * estimate, the reply's bound, the fields a refusal names.
 */

export interface AdmissionDependencies extends MeterDependencies {
  config: Config;
  catalogue: Catalogue;
  providers: ProviderRegistry;
  streams: StreamLimiter;
  /** The choice of deployments and their health (docs/routing.md). */
  router: DeploymentRouter;
}

/**
 * The wire format the upstream of a call must speak: OpenAI's chat (every adapter; routes in
 * other formats translate to it), embeddings, or a route's own format passed through
 * (Responses, Messages).
 */
export type UpstreamFormat = 'chat' | 'embeddings' | 'responses' | 'messages';

/** One call waiting to be admitted. `body` goes only to `check`. */
export interface AdmissionRequest<Body = unknown> {
  key: CachedApiKey;
  context: RequestContext;
  /** The client: its stream slot is released when its response closes. */
  client: ClientConnection;
  /** The model the request names. */
  model: string;
  kind: 'chat' | 'embeddings';
  upstream: UpstreamFormat;
  stream: boolean;
  /** The prompt's quick estimate (`quickPromptTokens` of its chat form: docs/rate-limits.md). */
  promptTokens: number;
  /** The request's bound on the reply; absent: `defaultCompletionReserve` of the model. */
  completionTokens: number | null | undefined;
  /** The route's names of the prompt and the reply's bound, for a request that can never fit. */
  fields: ReservationFields;
  body: Body;
  /**
   * The route's own 400s once the model and its attempts are known (capabilities, `n`,
   * `dimensions`); it may leave out the attempts that cannot serve the request.
   */
  check?: (model: ModelConfig, attempts: readonly Attempt[], body: Body) => readonly Attempt[] | void;
}

/**
 * An admitted call: what its upstream call needs. `attempts` is the one place the upstreams of
 * a call are chosen (the model, then its fallbacks that speak the format): routing across
 * several deployments of a model belongs here; the request's trace is annotated here (docs/tracing.md).
 */
export interface Admission {
  /** The requested model: metrics, the access log and a failed call's usage event name it. */
  model: ModelConfig;
  /** The deployments to try, in order (the model's as routed, then its fallbacks'); never empty. */
  attempts: readonly Attempt[];
  /**
   * The reservation under way (Meter.open: rate limits, budgets, the stream slot): the meter
   * the call records its usage through exactly once, or the refusal (429, 503). The one await
   * of admission is the caller's.
   */
  meter: Promise<Meter>;
  /** The prompt's quick estimate the reservation is made on. */
  promptTokens: number;
}

/** Reserved for the reply when the request sets no bound on it (docs/rate-limits.md). */
const DEFAULT_COMPLETION_RESERVE = 4096;

/**
 * The reply's reservation when the request sets no bound on it (`max_tokens`,
 * `max_output_tokens`, …): the model's `max_output_tokens` capped at DEFAULT_COMPLETION_RESERVE
 * (docs/rate-limits.md, "Reservation and reconciliation").
 */
export function defaultCompletionReserve(model: ModelConfig): number {
  return Math.min(model.maxOutputTokens ?? DEFAULT_COMPLETION_RESERVE, DEFAULT_COMPLETION_RESERVE);
}

/**
 * Whether an attempt's upstream speaks `format` itself: a Responses API is the provider's
 * `responses_api: true` and its adapter's Responses call (docs/openai-responses.md); Messages is
 * an adapter with a Messages API that serves the attempt's model (the Anthropic type, Claude on
 * a cloud: docs/anthropic-messages.md); chat and
 * embeddings are every adapter's.
 */
export function speaks(config: Config, attempt: Attempt, format: UpstreamFormat): boolean {
  if (format === 'responses')
    return config.providers[attempt.deployment.provider]?.responsesApi === true && attempt.adapter.responses !== undefined;
  if (format === 'messages') return nativeMessagesApi(attempt) !== null;
  return true;
}

/** The attempt's Messages API, when its upstream serves it for the attempt's model (a cloud serves it for Claude only). */
export function nativeMessagesApi(attempt: Attempt): NativeMessagesApi | null {
  const native = attempt.adapter.messages;
  if (!native) return null;
  return native.serves === undefined || native.serves(attempt.target) ? native : null;
}

/**
 * Whether a request for `model` goes to its upstream in `format` as it came (pass-through) or
 * is translated to chat: the model's own upstream decides (its fallbacks follow the same path).
 */
export function passesThrough(dependencies: AdmissionDependencies, model: ModelConfig, format: UpstreamFormat): boolean {
  const primary = attemptsOf(dependencies, model)[0];
  return primary !== undefined && speaks(dependencies.config, primary, format);
}

/**
 * Admits one call: throws the route's refusals that need no reservation (404/400 for the model,
 * 403 for the allow-list, the route's own 400s, 400 `request_too_large`), then opens the
 * reservation, whose promise (`meter`) rejects with the others (429 for rate limits, budgets
 * and stream slots; 503 when usage could not be recorded). Sets the context's model, provider
 * and stream.
 */
export function admit<Body>(dependencies: AdmissionDependencies, request: AdmissionRequest<Body>): Admission {
  const { context } = request;
  const receivedAt = dependencies.now();
  const model = resolveModel(dependencies.catalogue, request.model, request.kind);
  checkModelAllowed(request.key, model.id);
  // Metrics and the access log name the requested model until another one answers.
  context.model = model.id;
  context.provider = model.provider;
  context.stream = request.stream;
  const { promptTokens, fields } = request;
  const completionTokens = request.completionTokens ?? defaultCompletionReserve(model);
  const routed = upstreamsFor(dependencies, model, request, promptTokens + completionTokens);
  // docs/tracing.md: the request's span named and attributed once the model is known.
  context.trace?.admitted({
    kind: request.kind,
    model,
    providerType: routed[0]?.providerType ?? model.provider,
    stream: request.stream,
    maxTokens: request.completionTokens,
    body: request.body,
  });
  const attempts = request.check?.(model, routed, request.body) ?? routed;

  checkReservationFits(effectiveLimits(request.key, dependencies.limits).tpm, promptTokens, completionTokens, fields);
  const meter = Meter.open(dependencies, {
    key: request.key,
    requestId: context.requestId,
    receivedAt,
    stream: request.stream,
    reserveTokens: promptTokens + completionTokens,
    context,
    model,
    promptTokens,
    fields,
    streamSlot: request.stream ? { streams: dependencies.streams, client: request.client } : null,
  });
  return { model, attempts, meter, promptTokens };
}

function attemptsOf(dependencies: AdmissionDependencies, model: ModelConfig): Attempt[] {
  return attemptsFor(dependencies.catalogue, model, dependencies.config, (name) => dependencies.providers.get(name));
}

/**
 * The call's deployments in the order to try them (docs/routing.md: the choice is made here,
 * once, for every model route), those whose upstream speaks the format (all of them for chat
 * and embeddings; a passed-through format's first deployment speaks it: `passesThrough` chose
 * the path). The call's route (`context.routeChoice`) is what its retry loop reports health and the
 * answering deployment to.
 */
function upstreamsFor<Body>(
  dependencies: AdmissionDependencies,
  model: ModelConfig,
  request: AdmissionRequest<Body>,
  tokens: number,
): readonly Attempt[] {
  const { context } = request;
  const route = new RouteChoice(dependencies.router, context);
  context.routeChoice = route;
  const routed = dependencies.router.route(
    attemptsOf(dependencies, model),
    { keyId: request.key.id, session: context.sessionId ?? null, body: request.body, tokens },
    route,
  );
  const format = request.upstream;
  const attempts =
    format === 'chat' || format === 'embeddings' ? routed : routed.filter((attempt) => speaks(dependencies.config, attempt, format));
  if (attempts.length === 0) throw noDeployment(model);
  return attempts;
}

/** docs/routing.md: every deployment of the model (and of its fallbacks) is disabled by the operator. */
function noDeployment(model: ModelConfig): GatewayError {
  return new GatewayError(
    503,
    'upstream_error',
    'no_deployment_available',
    `Every deployment of the model "${model.id}" is disabled by the operator.`,
  );
}
