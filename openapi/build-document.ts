import { generateOpenApi } from '@ts-rest/open-api';
import type { AppRoute } from '@ts-rest/core';
import { generateSchema } from '@anatine/zod-openapi';
import type { ZodTypeAny } from 'zod';
import { contract, SESSION_COOKIE_NAME, type RouteAuth } from '../contract';

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
      'The dashboard session (POST /v1/admin/session): the operator\'s, or an account owner\'s, which reaches only its own account. ' +
      'POST, PATCH and DELETE requests authenticated by it must also send the session\'s `x-csrf-token`.',
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

interface RouteMetadata {
  auth?: RouteAuth;
  streamChunk?: ZodTypeAny;
}

/**
 * The OpenAPI 3 document, generated from the one contract. Route metadata adds what the
 * contract's zod schemas cannot say: the security scheme of each route, and the
 * text/event-stream form of streamed chat replies.
 */
export function buildOpenApiDocument(version: string): Record<string, unknown> {
  const document = generateOpenApi(
    contract,
    {
      info: {
        title: 'Model Gateway',
        version,
        description:
          'One OpenAI-compatible API in front of many model providers: chat completions (with streaming), embeddings, ' +
          'a model catalogue and a per-key usage report. Errors always have the body {"error": {"message", "type", "param", "code"}}.',
        license: { name: 'MIT' },
      },
      components: { securitySchemes: SECURITY_SCHEMES },
    },
    {
      setOperationId: 'concatenated-path',
      operationMapper: (operation, route: AppRoute) => {
        const metadata = (route.metadata ?? {}) as RouteMetadata;
        const schemes = SCHEMES_BY_AUTH[metadata.auth ?? 'none'];
        const mapped = { ...operation, security: schemes.map((scheme) => ({ [scheme]: [] })) };
        if (metadata.streamChunk && mapped.responses?.['200']?.content) {
          mapped.responses['200'].content['text/event-stream'] = {
            schema: {
              type: 'string',
              description:
                'With `stream: true`: server-sent events, each `data: <chat.completion.chunk JSON>` (schema in x-event-schema), ' +
                'then `data: [DONE]`. An error after the start arrives as `data: {"error": {...}}`.',
              'x-event-schema': generateSchema(metadata.streamChunk),
            },
          };
        }
        return mapped;
      },
    },
  );
  return document as unknown as Record<string, unknown>;
}
