import type { GatewayError } from '../errors/gateway-error';

/**
 * How a model route writes an error body (docs/errors.md). Status, headers (`retry-after`,
 * rate limits, `x-should-retry`) are the pipeline's; only the body's shape is the route's.
 */
export type ErrorFormat = (error: GatewayError) => object;

/** OpenAI's envelope: `{"error":{"message","type","param","code"}}`. */
export const openAiErrorFormat: ErrorFormat = (error) => error.toBody();
