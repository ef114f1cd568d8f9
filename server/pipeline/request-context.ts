import type { Principal } from '../middleware/authenticate';
import type { RouteChoice } from '../routing/deployment-router';
import { monotonicNow } from '../metrics/request-timing';
import type { RequestTrace } from '../tracing/request-trace';
import type { UsageEvent } from '../usage/types';

/** Set by the meter of a model call: `settled` once its usage (tokens) is known. */
export interface UsageOutcome {
  settled: boolean;
  /** Called when it settles, if that happens after the response closed. */
  onSettled: (() => void) | null;
}

/** The response header naming the deployment that answered (docs/routing.md). */
export const DEPLOYMENT_HEADER = 'x-gateway-deployment';

/**
 * What one request's stages, handler and access log hand each other (docs/architecture.md,
 * "Request path"). Every field exists from the start, so every context shares one hidden
 * class and its fields are read through monomorphic property loads.
 */
export class RequestContext {
  /** `x-request-id`: the client's when sane, else generated (docs/errors.md). */
  requestId = '';
  /** Monotonic ms when the request reached the gateway. */
  readonly startedAt = monotonicNow();
  /** Time inside upstream calls (retries and their backoff included). */
  upstreamMs = 0;
  /** The gateway's own time until the response headers (`x-gateway-overhead-ms`), once known. */
  overheadMs: number | null = null;
  /** The metrics' `route` label when the route is known up front (model routes). */
  route: string | null = null;
  principal: Principal | undefined = undefined;
  /** The model and provider named in metrics and the access log (the requested one until another answers). */
  model: string | undefined = undefined;
  provider: string | undefined = undefined;
  stream = false;
  usageOutcome: UsageOutcome | undefined = undefined;
  promptTokens: number | undefined = undefined;
  completionTokens: number | undefined = undefined;
  /** Which limit refused the request (the metrics' `limit` label of a 429). */
  rateLimitExceeded: string | undefined = undefined;
  /** Hosted tools a translated /v1/responses left out, comma-separated (docs/openai-responses.md). */
  droppedTools: string | undefined = undefined;
  /** Headers every reply to this request carries, errors included (the rate-limit headers). */
  responseHeaders: Record<string, string> | null = null;
  /** Epoch ms when the request reached the gateway (the request log's time). */
  receivedAt = 0;
  /** The model the client asked for (`context.model` moves to the one that answered). */
  requestedModel: string | undefined = undefined;
  /** The usage event the meter recorded (tokens by kind, exact cost, status); null when none was. */
  usage: UsageEvent | null = null;
  /** The error code the client got, when the gateway refused or failed the request. */
  errorCode: string | null = null;
  /** Upstream calls made, retries and fallbacks included. */
  upstreamAttempts = 0;
  /** Monotonic ms from the start until the first byte of the body went out; null until then. */
  firstByteMs: number | null = null;
  /** docs/request-log.md: the cap of each kept body, in bytes; 0 = bodies not kept (the default). */
  bodyLimitBytes = 0;
  /** The request's and the response's bodies as kept (cut to the cap); null when not kept. */
  requestBody: string | null = null;
  responseBody: string | null = null;
  /** docs/tracing.md: the request's trace while traces are on; null when off. */
  trace: RequestTrace | null = null;

  /** The session the request belongs to (docs/routing.md), read with its body on the model routes; undefined before. */
  sessionId: string | null | undefined = undefined;
  /** The call's choice of deployments, set by the admission step (docs/routing.md). */
  routeChoice: RouteChoice | null = null;
  /** The deployment that answered (`x-gateway-deployment`); undefined until one did. */
  deployment: string | undefined = undefined;

  /** docs/routing.md: every model reply names the deployment that answered. */
  answeredBy(deploymentId: string): void {
    this.deployment = deploymentId;
    if (this.responseHeaders === null) this.responseHeaders = {};
    this.responseHeaders[DEPLOYMENT_HEADER] = deploymentId;
  }

  addHeaders(headers: Readonly<Record<string, string>>): void {
    if (this.responseHeaders === null) this.responseHeaders = {};
    for (const name in headers) this.responseHeaders[name] = headers[name] as string;
  }

  /** Notes when the first byte of the body goes out: the request log's time to first byte. */
  markFirstByte(): void {
    if (this.firstByteMs === null) this.firstByteMs = monotonicNow() - this.startedAt;
  }

  /** The response text sent so far, while the bodies are kept: a stream's events as sent, up to the cap. */
  keepResponseText(text: string): void {
    const kept = this.responseBody ?? '';
    if (kept.length >= this.bodyLimitBytes) return;
    this.responseBody = kept + text.slice(0, this.bodyLimitBytes - kept.length);
  }

  /** Records the overhead when the headers go out: the time so far minus the upstream's. */
  markHeaders(): number {
    if (this.overheadMs === null) this.overheadMs = Math.max(0, monotonicNow() - this.startedAt - this.upstreamMs);
    return this.overheadMs;
  }
}
