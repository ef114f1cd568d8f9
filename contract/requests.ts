import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { adminMetadata } from './admin.js';
import { errorResponses } from './errors.js';

const c = initContract();

/** A catalogue model id as the gateway names them (docs/configuration.md). */
const ModelIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:/@-]{0,199}$/, 'a model id: letters, digits and . _ : / @ -, at most 200 characters');

const TimeSchema = z
  .string()
  .max(40)
  .refine((text) => !Number.isNaN(Date.parse(text)), 'an ISO 8601 time');

export const RequestLogQuerySchema = z
  .object({
    account_id: z.string().max(200).optional().describe("Only this account's requests (an owner sees only its own account's)."),
    key_id: z.string().max(200).optional().describe("Only this key's requests."),
    model: ModelIdSchema.optional().describe('Only requests to this catalogue model (the one that answered, else the one asked for).'),
    status: z.coerce
      .number()
      .int()
      .min(100)
      .max(599)
      .optional()
      .describe('Only requests answered with this HTTP status (499: the client went away).'),
    error_code: z
      .string()
      .regex(/^[a-z0-9_]{1,64}$/, 'an error code such as rate_limit_exceeded')
      .optional()
      .describe('Only requests that ended with this error code.'),
    from: TimeSchema.optional().describe('ISO 8601 time: requests received at or after it.'),
    to: TimeSchema.optional().describe('ISO 8601 time: requests received before it.'),
    limit: z.coerce.number().int().min(1).max(500).default(50).describe('Records per page; 1 to 500.'),
    cursor: z.string().max(200).optional().describe('`next_cursor` of the previous page.'),
  })
  .refine((query) => query.from === undefined || query.to === undefined || Date.parse(query.from) < Date.parse(query.to), {
    message: '`to` must be after `from`.',
    path: ['to'],
  });
export type RequestLogQuery = z.output<typeof RequestLogQuerySchema>;

export const RequestTokensSchema = z
  .object({
    prompt: z.number().int().describe('Prompt tokens, cached and cache writes included.'),
    completion: z.number().int().describe('Completion tokens, reasoning included.'),
    cached: z.number().int().describe('Prompt tokens read from the provider cache.'),
    cache_write: z.number().int().describe('Prompt tokens written to the cache (5-minute).'),
    cache_write_1h: z.number().int().describe('Prompt tokens written to the cache (1-hour).'),
    reasoning: z.number().int().describe('Completion tokens spent reasoning.'),
  })
  .describe('Tokens by kind, as billed (docs/pricing.md).');

export const RequestRecordSchema = z
  .object({
    id: z.string().describe("The record's id."),
    request_id: z.string().describe('The `x-request-id` of the request.'),
    received_at: z.string().describe('ISO 8601 time the gateway received it.'),
    account_id: z.string().nullable().describe('null when no valid key was given.'),
    key_id: z.string().nullable().describe("The key's id (never the key); null when no valid key was given."),
    route: z.string().describe('e.g. /v1/chat/completions.'),
    requested_model: z.string().nullable().describe('The model the request named.'),
    model: z.string().nullable().describe('The catalogue model that answered (after a fallback, the fallback).'),
    provider: z.string().nullable().describe('The provider that answered (`providers.<name>` of the configuration).'),
    deployment: z
      .string()
      .nullable()
      .describe(
        'The deployment of the model that answered (docs/routing.md); null when none did, or on a record kept before deployments were.',
      ),
    stream: z.boolean().describe('Whether the reply was streamed.'),
    status: z.number().int().describe('The HTTP status the client got; 499 when the client went away first.'),
    error_code: z.string().nullable().describe('The error code, when the request failed or was refused.'),
    tokens: RequestTokensSchema,
    cost_usd: z.string().describe('The exact cost in USD, as in `x-gateway-cost-usd` and the usage report.'),
    latency_ms: z.number().int().describe('Until the response was done.'),
    first_byte_ms: z.number().int().nullable().describe('Until the first byte of the body went out; null when none did.'),
    upstream_ms: z.number().int().describe('Time inside upstream calls, retries and their waits included.'),
    upstream_attempts: z.number().int().describe('Upstream calls made: 1 plus the retries and fallbacks taken; 0 when none was.'),
    client_ip: z.string().nullable().describe("The client's address (the server.trust_proxy rules apply)."),
    user_agent: z.string().nullable().describe("The client's `user-agent`."),
    session_id: z
      .string()
      .nullable()
      .describe(
        'The session the request belongs to, as the routing reads it (docs/routing.md, "Session affinity"); null when it names none.',
      ),
    bodies_kept: z.boolean().describe('Whether the bodies were kept for this request (until their own retention).'),
  })
  .describe('One model request (docs/request-log.md).');
export type RequestRecord = z.infer<typeof RequestRecordSchema>;

export const RequestDetailSchema = RequestRecordSchema.extend({
  request_body: z.string().nullable().describe('The request body as kept (secrets redacted, cut to the cap); null when not kept.'),
  response_body: z
    .string()
    .nullable()
    .describe("The response body as kept: the JSON reply, or a stream's events as sent; null when not kept."),
}).describe('One model request with its bodies when kept (docs/request-log.md).');
export type RequestDetail = z.infer<typeof RequestDetailSchema>;

export const RequestLogPageSchema = z
  .object({
    object: z.literal('list').describe('Always `list`.'),
    data: z.array(RequestRecordSchema).describe('Newest first.'),
    next_cursor: z.string().nullable().describe('Pass as `cursor` for older records; null on the last page.'),
    account_bodies_kept: z
      .boolean()
      .nullable()
      .describe(
        "Whether the operator keeps the bodies of every request of the account listed (`account_id`, or an owner's own); null when the list is not one account's. Keys listed one by one show in each record's `bodies_kept`.",
      ),
  })
  .describe('A page of the request log.');

export const requestsContract = c.router(
  {
    listRequests: {
      method: 'GET',
      path: '/v1/admin/requests',
      query: RequestLogQuerySchema,
      summary: "The request log, newest first (an owner sees its own account's)",
      responses: { 200: RequestLogPageSchema, ...errorResponses },
      metadata: adminMetadata('accounts'),
    },
    getRequest: {
      method: 'GET',
      path: '/v1/admin/requests/:requestId',
      pathParams: z.object({ requestId: z.string().max(200).describe("The record's `id`.") }),
      summary: 'One request of the request log, with its bodies when kept',
      responses: { 200: RequestDetailSchema, ...errorResponses },
      metadata: adminMetadata('accounts'),
    },
  },
  { strictStatusCodes: true },
);
