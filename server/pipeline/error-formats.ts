import { toMessagesErrorBody } from '../errors/anthropic-error-body';
import type { GatewayError } from '../errors/gateway-error';

/**
 * How a model route writes an error body (docs/errors.md). Status, headers (`retry-after`,
 * rate limits, `x-should-retry`) are the pipeline's; only the body's shape is the route's.
 */
export type ErrorFormat = (error: GatewayError) => object;

/** OpenAI's envelope: `{"error":{"message","type","param","code"}}`. */
export const openAiErrorFormat: ErrorFormat = (error) => error.toBody();

/** Anthropic's error body, on the /v1/messages routes (docs/anthropic-messages.md). */
export const anthropicErrorFormat: ErrorFormat = (error) => toMessagesErrorBody(error);

/**
 * The format of the errors Express answers for a path (an unknown method on a model route's
 * path, say): the model route's own, so a client of that route gets the shape it reads.
 */
export function errorFormatForPath(path: string): ErrorFormat {
  return path === '/v1/messages' || path.startsWith('/v1/messages/') ? anthropicErrorFormat : openAiErrorFormat;
}
