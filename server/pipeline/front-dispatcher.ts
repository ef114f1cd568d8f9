import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Express } from 'express';
import type { ModelPipeline } from './model-pipeline';

/** The listener `createApp` returns: the front dispatcher, with the Express app behind it. */
export type GatewayListener = RequestListener & { express: Express };

/**
 * The front dispatcher (docs/architecture.md, "Request path"): a POST to a model route's path
 * (a query string allowed; Express's case-insensitive, trailing-slash-tolerant matching
 * kept) goes to the model pipeline, without Express; every other request to the Express app
 * (the rest of the contract, /docs, /dashboard, /metrics, the 404/405 answers; a GET on a
 * model path is its 405).
 */
export function createFrontDispatcher(pipeline: ModelPipeline, app: Express): GatewayListener {
  const lowerCasePaths = new Map(pipeline.paths.map((path) => [path.toLowerCase(), path]));
  const dispatch = (request: IncomingMessage, response: ServerResponse): void => {
    if (request.method === 'POST') {
      const url = request.url ?? '';
      const query = url.indexOf('?');
      const pathname = query === -1 ? url : url.slice(0, query);
      const route = pipeline.routeFor(pathname) ?? pipeline.routeFor(lowerCasePaths.get(normalise(pathname)) ?? '');
      if (route !== undefined) return pipeline.handle(route, request, response);
    }
    app(request, response);
  };
  return Object.assign(dispatch, { express: app });
}

/** Express's default matching of a route path: any letter case, one trailing slash. */
function normalise(pathname: string): string {
  const lower = pathname.toLowerCase();
  return lower.length > 1 && lower.endsWith('/') ? lower.slice(0, -1) : lower;
}
