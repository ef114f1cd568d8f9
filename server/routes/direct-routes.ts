import type { ErrorRequestHandler, Express, NextFunction, Request, RequestHandler, Response } from 'express';
import { RequestLocals } from '../request-locals';

export interface DirectRoute {
  /** The exact request path (no query string): anything else goes through Express's router. */
  path: string;
  handler: RequestHandler;
}

type Handle = (request: Request, response: Response, callback?: (error?: unknown) => void) => void;

/**
 * Serves the POST routes given (the model routes, the hot path) without Express's router:
 * the app's own `handle`, wrapped, runs the same middleware (`stages`, in the app's order),
 * then the route's handler, then on an error the app's error handler, as Express would. What
 * Express's router does beside that on every request (its query-string parser, matching each
 * layer's path, per-layer parameter processing and prefix trimming, the route's own method
 * dispatch) cost more CPU than any single step of the gateway's own.
 *
 * Only a POST to exactly one of the paths is taken: a query string, another case, a trailing
 * slash or another method goes to Express, which answers it as before (the route is also
 * registered there). What Express gives a request that the stages and handlers read is set
 * here too (`req.res`, `res.req`, the app's prototypes, `res.locals`, here a RequestLocals,
 * `req.route` for the metrics' route label).
 */
export function serveDirectRoutes(app: Express, routes: readonly DirectRoute[], stages: readonly RequestHandler[], onError: ErrorRequestHandler): void {
  // Per path: its whole chain (the stages, then the handler) and Express's `req.route` for it.
  const byPath = new Map(routes.map((route) => [route.path, { chain: [...stages, route.handler], route: { path: route.path, methods: { post: true } } }]));
  const expressHandle = (app as unknown as { handle: Handle }).handle;
  const appRequest = app.request;
  const appResponse = app.response;

  (app as unknown as { handle: Handle }).handle = function handle(this: Express, request, response, callback) {
    const direct = request.method === 'POST' ? byPath.get(request.url) : undefined;
    if (direct === undefined) return Reflect.apply(expressHandle, this, [request, response, callback]);
    // express/lib/middleware/init.js; the prototypes are already these when the HTTP server
    // created the request (http-prototypes.ts), and then setting them changes nothing.
    if (Object.getPrototypeOf(request) !== appRequest) Object.setPrototypeOf(request, appRequest);
    if (Object.getPrototypeOf(response) !== appResponse) Object.setPrototypeOf(response, appResponse);
    request.res = response;
    response.req = request;
    response.locals = new RequestLocals();
    request.route = direct.route;
    let index = 0;
    let failed = false;
    const next: NextFunction = (error?: unknown) => {
      if (failed) return;
      if (error !== undefined && error !== null) {
        failed = true;
        return runErrorHandler(onError, error, request, response);
      }
      const stage = direct.chain[index++];
      if (stage === undefined) {
        // The handler passed the request on without an error (Express would go on to its 404):
        // a bug, answered as one rather than left without a reply.
        if (!response.headersSent) next(new Error('the route passed the request on without answering it'));
        return;
      }
      try {
        stage(request, response, next);
      } catch (thrown) {
        next(thrown ?? new Error('a route threw a nullish value'));
      }
    };
    request.next = next;
    next();
  };
}

function runErrorHandler(onError: ErrorRequestHandler, error: unknown, request: Request, response: Response): void {
  try {
    onError(error, request, response, () => undefined);
  } catch {
    // The error handler renders every error; if even that fails, the socket is all that is left.
    response.destroy();
  }
}
