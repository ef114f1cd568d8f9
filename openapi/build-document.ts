import { isZodType, type AppRoute } from '@ts-rest/core';
import { generateOpenApi } from '@ts-rest/open-api';
import { z, type ZodTypeAny } from 'zod';
import * as schemas from '../contract';
import { contract, SESSION_COOKIE_NAME, CSRF_HEADER, type RouteAuth } from '../contract';
import { listRoutes } from '../contract/list-routes';
import { JsonSchemaWriter, type JsonSchema } from './json-schema';

/** Bearer schemes of docs/keys-and-accounts.md and the operator's admin token. */
const SECURITY_SCHEMES = {
  apiKey: { type: 'http', scheme: 'bearer', description: 'An LLM API key (`sk-…`), for chat completions and embeddings.' },
  usageKey: { type: 'http', scheme: 'bearer', description: "The account's usage query key (`uk-…`), for GET /v1/usage/keys only." },
  adminToken: { type: 'http', scheme: 'bearer', description: 'The operator token (GATEWAY_ADMIN_TOKEN), for /v1/admin routes.' },
  sessionCookie: {
    type: 'apiKey',
    in: 'cookie',
    name: SESSION_COOKIE_NAME,
    description:
      "The dashboard session (POST /v1/admin/session): the operator's, or an account owner's, which reaches only its own account. " +
      `POST, PATCH and DELETE requests authenticated by it must also send the session's \`${CSRF_HEADER}\`.`,
  },
} as const;

/** Each alternative is enough on its own (OpenAPI: the entries of `security` are OR-ed). */
const SCHEMES_BY_AUTH: Record<RouteAuth, string[]> = {
  'api-key': ['apiKey'],
  'usage-key': ['usageKey'],
  admin: ['adminToken', 'sessionCookie'],
  session: ['sessionCookie'],
  none: [],
};

/** The tag of each route group (the contract's top-level keys). */
const TAGS: Record<string, { name: string; description: string }> = {
  chat: { name: 'Chat', description: 'OpenAI-compatible chat completions, streamed or not (docs/chat-and-streaming.md).' },
  embeddings: { name: 'Embeddings', description: 'OpenAI-compatible embeddings (docs/embeddings.md).' },
  responses: { name: 'Responses', description: 'The OpenAI Responses API, streamed or not, stateless (docs/openai-responses.md).' },
  messages: { name: 'Messages', description: 'The Anthropic Messages API and its token count (docs/anthropic-messages.md).' },
  models: { name: 'Models', description: 'The model catalogue.' },
  usage: { name: 'Usage', description: 'The per-key usage report of an account (docs/usage-report.md).' },
  admin: { name: 'Admin', description: 'Accounts, keys and usage for the operator and the dashboard (docs/keys-and-accounts.md).' },
  session: { name: 'Dashboard session', description: "The dashboard's sign-in." },
  health: { name: 'Health', description: 'Liveness, readiness and this document.' },
};

/** Route metadata the document reads (set in contract/*.ts). */
interface RouteMetadata {
  auth?: RouteAuth;
  /** The schema of one `data:` event when the reply is streamed. */
  streamChunk?: ZodTypeAny;
  /** Example request body and success reply, and the text of a short stream (streamed routes). */
  examples?: { request?: unknown; response?: unknown; stream?: string };
}

/**
 * Every exported `…Schema` of the contract is a named component (`ChatCompletionSchema` ->
 * `ChatCompletion`), written once and referred to by `$ref`.
 */
function namedSchemas(): Record<string, ZodTypeAny> {
  // Query and path parameter objects are written as parameters, not as schemas.
  const parameterObjects = new Set<unknown>(listRoutes(contract).flatMap((route) => [route.query, route.pathParams]));
  const named: Record<string, ZodTypeAny> = {};
  for (const [exportName, value] of Object.entries(schemas)) {
    if (exportName.endsWith('Schema') && isZodType(value) && !parameterObjects.has(value))
      named[exportName.slice(0, -'Schema'.length)] = value as ZodTypeAny;
  }
  return named;
}

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  204: 'No content',
  400: 'The request is invalid (`invalid_request_error`)',
  401: 'Missing or unknown credentials (`authentication_error`)',
  403: 'The credentials may not do this, or the key is blocked or revoked (`permission_error`)',
  404: 'No such route, model, account or key (`not_found_error`)',
  405: 'The route exists but not with this method',
  413: 'The body is larger than the configured limit',
  415: 'The body is not `application/json`',
  429: 'A rate limit was reached (`rate_limit_error`); `retry-after` says when to try again',
  500: 'An unexpected server error (`server_error`)',
  501: 'The model or provider does not support this',
  502: 'The upstream provider failed or is not configured (`upstream_error`)',
  503: 'The gateway or a dependency is unavailable',
  504: 'The upstream provider timed out',
};

const isNoBody = (value: unknown): boolean => typeof value === 'symbol';
/** `chat.create` -> `chatCreate`. */
const camelCase = (name: string): string => name.replace(/\.(\w)/g, (_match, letter: string) => letter.toUpperCase());

type GenerateOptions = NonNullable<Parameters<typeof generateOpenApi>[2]>;
type Operation = ReturnType<NonNullable<GenerateOptions['operationMapper']>>;
type Parameter = NonNullable<Operation['parameters']>[number];

/** The fields of a path or query schema, through the refinements around its object. */
function objectShape(schema: unknown): Record<string, ZodTypeAny> {
  let inner = schema;
  while (inner instanceof z.ZodEffects) inner = inner.innerType();
  return inner instanceof z.ZodObject ? (inner.shape as Record<string, ZodTypeAny>) : {};
}

/**
 * A parameter generateOpenApi found, with its schema written from the route's zod schema.
 * Header parameters are not written: the only route headers are the Messages routes' (credentials,
 * which the security schemes stand for, and Anthropic's version headers).
 */
function parameter(generated: Parameter, route: AppRoute, writer: JsonSchemaWriter): JsonSchema[] {
  if (!('in' in generated) || (generated.in !== 'path' && generated.in !== 'query')) return [];
  const { name } = generated;
  const schema = objectShape(generated.in === 'path' ? route.pathParams : route.query)[name];
  if (schema === undefined) return [{ ...generated, description: `The ${name}.` }];
  if (generated.in === 'path')
    return [{ name, in: 'path', required: true, description: schema.description ?? `The ${name}.`, schema: writer.write(schema) }];
  // An optional parameter is `required: false`; its schema is the value's (not "absent or the value").
  const value = schema instanceof z.ZodOptional ? (schema.unwrap() as ZodTypeAny) : schema;
  const { description, ...rest } = writer.write(value);
  return [
    { name, in: 'query', required: generated.required === true, description: schema.description ?? description ?? name, schema: rest },
  ];
}

function responseEntry(status: number, schema: unknown, writer: JsonSchemaWriter, metadata: RouteMetadata): JsonSchema {
  const description = STATUS_TEXT[status] ?? `HTTP ${status}`;
  if (isNoBody(schema) || !isZodType(schema)) return { description };
  const json: JsonSchema = { schema: writer.write(schema) };
  if (status < 300 && metadata.examples?.response !== undefined) json.example = metadata.examples.response;
  const content: Record<string, JsonSchema> = { 'application/json': json };
  if (status === 200 && metadata.streamChunk)
    content['text/event-stream'] = eventStream(metadata.streamChunk, metadata.examples?.stream, writer);
  return { description, content };
}

/**
 * A streamed reply. OpenAPI 3.1 has no schema for the events of a stream: the body is
 * described as text, and the schema of one event is named in the description and given as
 * the media type's `x-event-schema`. How a stream ends and how a late error arrives differ
 * by route: the operation's description says.
 */
function eventStream(chunk: ZodTypeAny, example: string | undefined, writer: JsonSchemaWriter): JsonSchema {
  const name = writer.nameOf(chunk) ?? 'event';
  const result: JsonSchema = {
    schema: {
      type: 'string',
      description:
        `With \`stream: true\` in the body: server-sent events, each \`data: <JSON>\` holding one \`${name}\` ` +
        "(components/schemas, and the `x-event-schema` of this media type). The operation's description says how the stream ends.",
    },
    'x-event-schema': writer.write(chunk),
  };
  if (example !== undefined) result.example = example;
  return result;
}

/**
 * generateOpenApi's `operationMapper`: the operation it generated (key path as operationId,
 * group as tag, summary, description, parameters, request body, one response per status),
 * completed from the route's metadata (auth, examples, stream events) and with every schema
 * written by the JsonSchemaWriter from the route's zod schemas (JSON Schema 2020-12 with named
 * components, where generateOpenApi writes OpenAPI 3.0 schemas, all inline).
 */
function completeOperation(generated: Operation, route: AppRoute, writer: JsonSchemaWriter): Operation {
  const metadata = (route.metadata ?? {}) as RouteMetadata;
  const name = generated.operationId ?? '';
  const group = generated.tags?.[0] ?? '';
  const result: JsonSchema = {
    operationId: camelCase(name),
    summary: generated.summary ?? name,
    description: generated.description ?? generated.summary ?? name,
    tags: [TAGS[group]?.name ?? group],
    security: SCHEMES_BY_AUTH[metadata.auth ?? 'none'].map((scheme) => ({ [scheme]: [] })),
  };
  const parameters = (generated.parameters ?? []).flatMap((entry) => parameter(entry, route, writer));
  if (parameters.length > 0) result.parameters = parameters;
  if (generated.requestBody !== undefined && 'body' in route) {
    const json: JsonSchema = { schema: writer.write(route.body as ZodTypeAny) };
    if (metadata.examples?.request !== undefined) json.example = metadata.examples.request;
    result.requestBody = { required: true, content: { 'application/json': json } };
  }
  const responses = route.responses as Record<string, unknown>;
  result.responses = Object.fromEntries(
    Object.keys(generated.responses as object).map((status) => [
      status,
      responseEntry(Number(status), responses[status], writer, metadata),
    ]),
  );
  return result as Operation;
}

/**
 * The OpenAPI 3.1 document, generated from the one contract by @ts-rest/open-api's
 * generateOpenApi: operations from the routes (summary, description, examples and auth from
 * their entries and metadata), schemas from the zod schemas (descriptions from `.describe()`),
 * security schemes from the route's auth, and the text/event-stream form of streamed replies.
 */
export function buildOpenApiDocument(version: string): Record<string, unknown> {
  const writer = new JsonSchemaWriter(namedSchemas());
  // generateOpenApi puts `openapi` and `paths` first and sets `openapi` to 3.0: the document
  // keeps its own order (header, paths, components) and version.
  const { paths, components, ...header } = generateOpenApi(
    contract,
    {
      jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
      info: {
        title: 'Model Gateway',
        version,
        summary: 'One OpenAI-compatible API in front of many model providers.',
        description:
          'Chat completions (with streaming), the OpenAI Responses and Anthropic Messages APIs, embeddings, a model catalogue ' +
          'and a per-key usage report, behind API keys with rate limits and exact usage accounting. Errors have the body ' +
          '`{"error": {"message", "type", "param", "code"}}` (docs/errors.md), except on /v1/messages, which answers with ' +
          "Anthropic's error body.",
        license: { name: 'MIT', identifier: 'MIT' },
      },
      servers: [{ url: '/', description: 'The gateway serving this document.' }],
      tags: Object.values(TAGS),
      components: { schemas: writer.writeComponents(), securitySchemes: SECURITY_SCHEMES },
    },
    {
      setOperationId: 'concatenated-path',
      operationMapper: (operation, route) => completeOperation(operation, route, writer),
    },
  );
  return { ...header, openapi: '3.1.0', paths, components };
}
