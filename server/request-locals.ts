import type { UsageOutcome } from './middleware/access-log';
import type { RequestTiming } from './metrics/request-timing';
import type { Principal } from './middleware/authenticate';

/**
 * `response.locals` of the model routes (routes/direct-routes.ts): what the middleware, the
 * handlers and the access log hand each other about one request. Every field exists from
 * the start, so each response's locals share one hidden class and are read through
 * monomorphic property loads. Express's own `Object.create(null)` (what the other routes get)
 * is a dictionary-mode object, whose properties are hashed, and rehashed as they are added
 * (about ten per model request).
 */
export class RequestLocals {
  requestId: string | undefined = undefined;
  timing: RequestTiming | undefined = undefined;
  principal: Principal | undefined = undefined;
  model: string | undefined = undefined;
  provider: string | undefined = undefined;
  stream: boolean | undefined = undefined;
  usageOutcome: UsageOutcome | undefined = undefined;
  promptTokens: number | undefined = undefined;
  completionTokens: number | undefined = undefined;
  rateLimitExceeded: string | undefined = undefined;
  /** Hosted tools a translated /v1/responses left out, comma-separated. */
  droppedTools: string | undefined = undefined;
}
