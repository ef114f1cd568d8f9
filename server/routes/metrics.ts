import type { NextFunction, Request, Response } from 'express';
import { authenticationError } from '../errors/gateway-error';
import { hashesEqual, hashKey } from '../keys/key-text';
import type { GatewayMetrics } from '../metrics/gateway-metrics';

/** The path Prometheus scrapes; outside the JSON contract (its body is the text exposition format). */
export const METRICS_PATH = '/metrics';

/**
 * GET /metrics in the Prometheus text format. Open by default, like most exporters, since it
 * carries no key, prompt or account data (label values are route patterns, catalogue models
 * and provider names); with GATEWAY_METRICS_TOKEN set it needs that token as a bearer token,
 * compared in constant time.
 */
export function metricsEndpoint(metrics: GatewayMetrics, token: string | null) {
  const tokenHash = token === null ? null : hashKey(token);
  return function metricsHandler(request: Request, response: Response, next: NextFunction): void {
    if (tokenHash !== null) {
      const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(request.headers.authorization ?? '');
      if (!match?.[1])
        return next(
          authenticationError('missing_api_key', 'GET /metrics needs the metrics token: "Authorization: Bearer <GATEWAY_METRICS_TOKEN>".'),
        );
      if (!hashesEqual(hashKey(match[1]), tokenHash)) return next(authenticationError('invalid_api_key', 'Invalid metrics token.'));
    }
    metrics.render().then((text) => {
      response.setHeader('cache-control', 'no-store');
      response.type(metrics.contentType).send(text);
    }, next);
  };
}
