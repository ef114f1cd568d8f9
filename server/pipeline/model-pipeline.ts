import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { classifyError } from '../errors/classify-error';
import { authenticationError, type GatewayError } from '../errors/gateway-error';
import { shouldClientRetry } from '../errors/render-error';
import { fromZodError } from '../errors/validation-error';
import type { CachedApiKey, KeyCache } from '../keys/key-cache';
import { authenticateApiKey, bearerToken } from '../middleware/authenticate';
import { chooseRequestId } from '../middleware/request-id';
import type { AccessReport } from './access-report';
import { compileBodySchema, type BodyValidator } from './compiled-schema';
import type { ErrorFormat } from './error-formats';
import { createBodyParser, readJsonBody, type BodyParser } from './read-body';
import { ServerReply, type Reply } from './reply';
import { RequestContext } from './request-context';
import { bodyLimitFor, requestRecord, type RequestLogSettings } from '../request-log/request-record';
import { sessionOf } from '../routing/session-affinity';
import type { ClosedTrace, RequestTrace, Tracing } from '../tracing/request-trace';

/** What a model route's handler gets: the validated body, the caller's key, the context, the reply. */
export interface ModelCall<Body> {
  body: Body;
  key: CachedApiKey;
  context: RequestContext;
  reply: Reply;
  /** The request's headers, for what a route passes on (the Messages routes' `anthropic-beta`). */
  headers: IncomingHttpHeaders;
}

/** A contract entry of a model route: a POST with a zod body schema and the schema of its 200's JSON body. */
export interface ModelRouteContract<Schema extends z.ZodTypeAny, Ok extends z.ZodTypeAny = z.ZodTypeAny> {
  method: 'POST';
  path: string;
  body: Schema;
  responses: { 200: Ok };
}

/** The JSON body of a model route's 200, as its contract entry declares it. */
export type ModelRouteResponse<Ok extends z.ZodTypeAny> = z.input<Ok>;

/**
 * One model route (docs/architecture.md, "Request path"): its contract entry (path, body
 * schema, response schema), its handler, its error format. The handler returns the JSON body
 * of a 200, typed by the contract's response schema, or null when it answered itself (a stream).
 */
export interface ModelRoute<Schema extends z.ZodTypeAny = z.ZodTypeAny, Ok extends z.ZodTypeAny = z.ZodTypeAny> {
  contract: ModelRouteContract<Schema, Ok>;
  handle: (call: ModelCall<z.output<Schema>>) => Promise<ModelRouteResponse<Ok> | null>;
  errorFormat: ErrorFormat;
  /** The API key may also come in `x-api-key` (what Anthropic's clients send); `Authorization: Bearer` wins. */
  acceptsXApiKey?: boolean;
}

/**
 * A table entry with its types checked against its own contract entry: the handler takes the
 * body schema's output and returns its 200's body (the table itself holds routes of any schema).
 */
export function modelRoute<Schema extends z.ZodTypeAny, Ok extends z.ZodTypeAny>(route: ModelRoute<Schema, Ok>): ModelRoute {
  return route as unknown as ModelRoute;
}

export interface ModelPipelineOptions {
  routes: readonly ModelRoute[];
  keys: KeyCache;
  bodyLimitBytes: number;
  generateId: () => string;
  report: AccessReport;
  logger: Logger;
  /** The client's address for the access log (the proxy settings apply). */
  clientIp: (request: IncomingMessage) => string | undefined;
  /** The clock key expiry and rotation grace are decided by (docs/operator-controls.md); default Date.now. */
  now?: () => number;
  /** docs/request-log.md: where each request's record goes; absent = no request log. */
  requestLog?: RequestLogSettings | undefined;
  /** docs/tracing.md: a trace per request; absent = traces off. */
  tracing?: Tracing | undefined;
}

/** A route with what is prepared once, at start: its compiled body validator. */
export interface PreparedRoute {
  path: string;
  route: ModelRoute;
  validate: BodyValidator<unknown>;
}

/**
 * The model routes' pipeline. Every model route runs these stages, in this order:
 *   1. request id   the client's `x-request-id` when sane, else a new one; on every reply
 *   2. body         read with the size limit, JSON content type, parsed (read-body.ts)
 *   3. auth         an `sk-` key from `Authorization: Bearer` (or `x-api-key` where the route says)
 *   4. validation   the contract's zod schema for the route, compiled (compiled-schema.ts)
 *   5. admission    the handler's first step: model, allow-list, reservation, meter, stream slot
 *                   (completions/admission.ts)
 *   6. handler      the route's own: the upstream call and the reply (e.g. completions/chat-completion.ts)
 *   7. metering     the meter records usage exactly once, however the call ends
 *   8. access log   one line and the request metrics when the response closes (access-report.ts),
 *                   then the request log's record (docs/request-log.md) and the trace's end
 *                   (docs/tracing.md: started at stage 1, annotated by admission and the upstream attempts)
 * Any failure is answered in the route's error format, with the context's headers.
 */
export class ModelPipeline {
  private readonly byPath = new Map<string, PreparedRoute>();
  private readonly bodyParser: BodyParser;

  constructor(private readonly options: ModelPipelineOptions) {
    for (const route of options.routes) {
      const { path } = route.contract;
      this.byPath.set(path, { path, route, validate: compileBodySchema(route.contract.body) });
    }
    this.bodyParser = createBodyParser(options.bodyLimitBytes);
  }

  /** The paths served here (POST only). */
  get paths(): string[] {
    return [...this.byPath.keys()];
  }

  /** The route a POST to `pathname` goes to, if any. */
  routeFor(pathname: string): PreparedRoute | undefined {
    return this.byPath.get(pathname);
  }

  handle(prepared: PreparedRoute, request: IncomingMessage, response: ServerResponse): void {
    // Stage 1: request id. The context and reply exist before anything can fail.
    const context = new RequestContext();
    context.receivedAt = (this.options.now ?? Date.now)();
    context.route = prepared.path;
    context.requestId = chooseRequestId(request.headers['x-request-id'], this.options.generateId);
    // Its `x-request-id` header goes out with the reply's other headers (reply.ts).
    if (this.options.tracing !== undefined) context.trace = this.options.tracing.startRequest(context, request.headers);
    const reply = new ServerReply(response, context);
    // Stage 8 (registered first, runs last): the access log and metrics, once the response closed.
    response.once('close', () => this.closed(context, request, response));
    this.run(prepared, request, response, context, reply).catch((error: unknown) => this.fail(prepared.route, context, reply, error));
  }

  private async run(
    prepared: PreparedRoute,
    request: IncomingMessage,
    response: ServerResponse,
    context: RequestContext,
    reply: Reply,
  ): Promise<void> {
    const { route } = prepared;
    // Stage 2: body.
    const read = await readJsonBody(request, response, this.options.bodyLimitBytes, this.bodyParser);
    if (!read.ok) throw read.error;
    // docs/routing.md, "Session affinity": read once from the request as sent, for the routing and the request log.
    context.sessionId = sessionOf(request.headers, read.body);
    const requestLog = this.options.requestLog;
    if (requestLog !== undefined) context.requestedModel = modelNamed(read.body);
    // Stage 3: auth.
    const token = apiKeyOf(route, request);
    if (token === null && route.acceptsXApiKey === true) throw MISSING_KEY_EITHER_HEADER();
    const principal = await authenticateApiKey(this.options.keys, token, this.options.now);
    context.principal = principal;
    if (requestLog !== undefined) {
      context.bodyLimitBytes = bodyLimitFor(requestLog, principal.key.id, principal.key.accountId);
      if (context.bodyLimitBytes > 0) context.requestBody = JSON.stringify(read.body);
    }
    // Stage 4: validation.
    const parsed = prepared.validate(read.body);
    if (!parsed.success) throw fromZodError(parsed.error);
    // Stages 5 to 7: the handler, which admits the call (limits, meter) and records usage through its meter.
    const result = await route.handle({ body: parsed.data, key: principal.key, context, reply, headers: request.headers });
    if (result !== null) reply.sendJson(200, JSON.stringify(result));
  }

  private fail(route: ModelRoute, context: RequestContext, reply: Reply, error: unknown): void {
    try {
      const gatewayError = classifyError(error, context.requestId, this.options.logger);
      context.errorCode = gatewayError.code;
      if (reply.headersSent) {
        // Too late for a status line: end the response so the client is not left waiting.
        reply.end();
        return;
      }
      reply.sendJson(gatewayError.status, JSON.stringify(route.errorFormat(gatewayError)), errorHeaders(gatewayError));
    } catch {
      // Rendering the error failed too: the connection is all that is left to close.
      reply.destroy();
    }
  }

  private closed(context: RequestContext, request: IncomingMessage, response: ServerResponse): void {
    const url = request.url ?? '';
    const query = url.indexOf('?');
    const finished = {
      method: request.method ?? 'POST',
      path: query === -1 ? url : url.slice(0, query),
      route: context.route ?? 'unmatched',
      status: response.statusCode,
      ip: this.options.clientIp(request),
      aborted: !response.writableFinished,
    };
    const requestLog = this.options.requestLog;
    const trace = context.trace;
    if (requestLog === undefined && trace === null) return this.options.report.closed(context, finished);
    this.options.report.closed(context, finished, (totalMs) => {
      if (trace !== null) this.endTrace(trace, context, finished);
      if (requestLog === undefined) return;
      try {
        requestLog.sink.recordRequest(requestRecord(context, finished, request.headers, totalMs, requestLog));
      } catch (error) {
        // The request log must never break a request.
        this.options.logger.warn({ err: error, requestId: context.requestId }, 'request log record failed');
      }
    });
  }

  private endTrace(trace: RequestTrace, context: RequestContext, closed: ClosedTrace): void {
    try {
      trace.end(context, closed);
    } catch (error) {
      // Tracing must never break a request.
      this.options.logger.warn({ err: error, requestId: context.requestId }, 'trace end failed');
    }
  }
}

const MISSING_KEY_EITHER_HEADER = (): GatewayError =>
  authenticationError('missing_api_key', 'Missing API key: send it as "x-api-key: <key>" or "Authorization: Bearer <key>".');

/** The `model` a request body names, whatever else it holds (the record of a refused request names it too). */
function modelNamed(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || !('model' in body)) return undefined;
  const model = body.model;
  return typeof model === 'string' ? model.slice(0, 256) : undefined;
}

/** The key the route reads: `Authorization: Bearer`, else `x-api-key` where the route accepts it. */
function apiKeyOf(route: ModelRoute, request: IncomingMessage): string | null {
  const bearer = bearerToken(request.headers.authorization);
  if (bearer !== null || route.acceptsXApiKey !== true) return bearer;
  const header = request.headers['x-api-key'];
  return typeof header === 'string' && header.length > 0 ? header.trim() : null;
}

/** An error's own headers, and `x-should-retry: false` where a retry cannot help. */
function errorHeaders(error: GatewayError): Record<string, string> {
  if (shouldClientRetry(error.status)) return error.headers;
  return { ...error.headers, 'x-should-retry': 'false' };
}
