import { z } from 'zod';
import type { UpstreamError } from '../../errors/gateway-error';
import type { HttpResponse } from '../types';
import { parseJson, upstreamStatusError } from '../upstream-errors';

/**
 * Bedrock errors -> gateway errors (docs/errors.md, docs/bedrock.md "Errors").
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_Errors
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/CommonErrors.html
 * An error reply names its type in the `x-amzn-errortype` header (`ValidationException:http://…`)
 * and carries `{"message": …}` (some services spell it `Message`, or put the type in
 * `__type`). Inside an event stream, an exception arrives as a message of type `exception`
 * whose `:exception-type` header is the same name in lower camel case (`throttlingException`).
 *
 * The gateway treats the error by its type, at the status below, the way it treats every
 * provider's status (upstream-errors.ts): 400s are the caller's (the message passed on),
 * 403 the gateway's credentials (502, text withheld), 408 a timeout, 429/5xx retried then 502.
 */
const STATUS_BY_ERROR_TYPE: Readonly<Record<string, number>> = {
  validationexception: 400,
  resourcenotfoundexception: 404,
  accessdeniedexception: 403,
  unrecognizedclientexception: 403,
  invalidsignatureexception: 403,
  expiredtokenexception: 403,
  incompletesignatureexception: 403,
  missingauthenticationtokenexception: 403,
  throttlingexception: 429,
  // An account quota, not the request: retried and answered like a throttle.
  servicequotaexceededexception: 429,
  // Documented as 429, but it means the model is being started: retried like an outage.
  modelnotreadyexception: 503,
  modeltimeoutexception: 408,
  modelerrorexception: 500,
  modelstreamerrorexception: 500,
  internalserverexception: 500,
  serviceunavailableexception: 503,
};

const ErrorBodySchema = z
  .object({ message: z.string().optional(), Message: z.string().optional(), __type: z.string().optional() })
  .passthrough();

/** The error type of a reply: `ValidationException` from `ValidationException:http://…` or `com.amazon…#ValidationException`. */
function errorTypeName(raw: string | undefined): string | null {
  if (!raw) return null;
  const withoutUrl = raw.split(':')[0] ?? '';
  const name = withoutUrl.slice(withoutUrl.lastIndexOf('#') + 1).trim();
  return name === '' ? null : name;
}

export function bedrockStatusError(
  provider: string,
  response: Pick<HttpResponse, 'status' | 'headers'>,
  body: string,
  secret: string,
  retryAfterMs: number | null,
): UpstreamError {
  const json = parseJson(body);
  const parsed = json.ok ? ErrorBodySchema.safeParse(json.value) : null;
  const header = response.headers['x-amzn-errortype'];
  const type = errorTypeName(Array.isArray(header) ? header[0] : header) ?? errorTypeName(parsed?.success ? parsed.data.__type : undefined);
  const message = parsed?.success ? (parsed.data.message ?? parsed.data.Message ?? null) : null;
  const status = (type && STATUS_BY_ERROR_TYPE[type.toLowerCase()]) || response.status;
  return upstreamStatusError(provider, status, describe(type, message), secret, retryAfterMs);
}

/** An `exception` message inside a 200 event stream, mapped as if it had arrived with its documented status. */
export function bedrockStreamError(provider: string, exceptionType: string, payload: string, secret: string): UpstreamError {
  const json = parseJson(payload);
  const parsed = json.ok ? ErrorBodySchema.safeParse(json.value) : null;
  const message = parsed?.success ? (parsed.data.message ?? parsed.data.Message ?? null) : null;
  const status = STATUS_BY_ERROR_TYPE[exceptionType.toLowerCase()] ?? 500;
  return upstreamStatusError(provider, status, describe(exceptionType, message), secret);
}

function describe(type: string | null, message: string | null): string | null {
  if (message && type) return `${message} (${type})`;
  return message ?? type;
}
