import { chatChunk, chatUsageChunk, sendSse, type ChatUsage, type ScriptedReply, type SseStep } from './mock-openai-upstream';
import { refusal, startMockUpstream, type CommonReply, type MockUpstream, type RecordedRequest } from './mock-upstream';

/**
 * A local Azure OpenAI resource (https://learn.microsoft.com/azure/ai-foundry/openai/reference,
 * the v1 API: https://learn.microsoft.com/azure/ai-foundry/openai/api-version-lifecycle). Its
 * wire format is OpenAI's (the replies and builders of mock-openai-upstream.ts); what is Azure's
 * is checked and answered here, before any queued reply, as the service does:
 * - the paths `/openai/v1/{chat/completions,embeddings,responses}` and
 *   `/openai/deployments/{deployment}/{chat/completions,embeddings}`, the latter only with an
 *   `api-version` the resource serves (else 404 "Resource not found" / 400 "API version not supported");
 * - the credential: the `api-key` header, or `Authorization: Bearer <Entra token>` with a token
 *   the resource accepts (else 401 in Azure's error shape);
 * and Azure's own answers are built here: the content filter's 400, `finish_reason:
 * "content_filter"`, the prompt filter results (a stream's first chunk, with no choice) and the
 * per-choice `content_filter_results`
 * (https://learn.microsoft.com/azure/ai-foundry/openai/concepts/content-filter).
 */

export interface MockAzureOptions {
  /** The resource's key (`api-key` header). */
  apiKey?: string;
  /** Entra access tokens the resource accepts now; tests add and remove tokens (expiry). */
  acceptedTokens?: Set<string>;
  /** API versions the deployment-path API serves. */
  apiVersions?: string[];
}

export interface MockAzureUpstream extends MockUpstream<ScriptedReply> {
  /** The resource endpoint (`base_url` of an azure provider), e.g. http://127.0.0.1:1234. */
  endpoint: string;
  /** The deployment a recorded request named: in its path, or on the v1 API its body's `model`. */
  deploymentOf(request: RecordedRequest): string | undefined;
}

export const SERVED_API_VERSIONS = ['2024-10-21', '2025-04-01-preview'];

const V1_PATHS = new Set(['/openai/v1/chat/completions', '/openai/v1/embeddings', '/openai/v1/responses']);
const DEPLOYMENT_PATH = /^\/openai\/deployments\/([^/]+)\/(chat\/completions|embeddings)$/;

export async function startMockAzureUpstream(options: MockAzureOptions = {}): Promise<MockAzureUpstream> {
  const upstream = await startMockUpstream<ScriptedReply>({
    defaultReply: azureError(500, 'InternalServerError', 'No reply scripted.'),
    answerFirst: (request) => refusal(refusalOf(request, options)),
    sendOther: sendSse,
  });
  return {
    ...upstream,
    endpoint: upstream.baseUrl,
    deploymentOf(request) {
      const match = DEPLOYMENT_PATH.exec(new URL(request.path, 'http://azure').pathname);
      if (match) return decodeURIComponent(match[1] ?? '');
      const model = (request.body as { model?: unknown } | undefined)?.model;
      return typeof model === 'string' ? model : undefined;
    },
  };
}

function refusalOf(request: RecordedRequest, options: MockAzureOptions): CommonReply | null {
  const url = new URL(request.path, 'http://azure');
  const deployment = DEPLOYMENT_PATH.exec(url.pathname);
  if (!deployment && !V1_PATHS.has(url.pathname)) return azureError(404, '404', 'Resource not found');
  if (deployment) {
    const version = url.searchParams.get('api-version');
    if (version === null) return azureError(404, '404', 'Resource not found');
    if (!(options.apiVersions ?? SERVED_API_VERSIONS).includes(version)) return azureError(400, 'BadRequest', 'API version not supported');
  }
  const key = request.headers['api-key'];
  const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
  const keyAccepted = options.apiKey !== undefined && key === options.apiKey;
  const tokenAccepted = bearer !== undefined && (options.acceptedTokens?.has(bearer) ?? false);
  if (keyAccepted || tokenAccepted) return null;
  if (bearer !== undefined) {
    return azureError(
      401,
      'PermissionDenied',
      'Unauthorized. Access token is missing, invalid, audience is incorrect (https://cognitiveservices.azure.com), or have expired.',
    );
  }
  return azureError(
    401,
    '401',
    'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.',
  );
}

/** Azure's error envelope: `{"error": {"code", "message"}}`. */
export function azureError(status: number, code: string, message: string): Extract<ScriptedReply, { type: 'json' }> {
  return { type: 'json', status, body: { error: { code, message } } };
}

/** A filter verdict per category: the named ones filtered (at `medium`), the others `safe`. */
export function filterResults(filtered: string[] = []): Record<string, unknown> {
  const severity = (name: string) => ({ filtered: filtered.includes(name), severity: filtered.includes(name) ? 'medium' : 'safe' });
  return {
    hate: severity('hate'),
    self_harm: severity('self_harm'),
    sexual: severity('sexual'),
    violence: severity('violence'),
    ...(filtered.includes('jailbreak') ? { jailbreak: { filtered: true, detected: true } } : {}),
  };
}

/** The 400 of a prompt the content filter refused (the categories in `innererror.content_filter_result`). */
export function contentFilterErrorReply(filtered: string[]): Extract<ScriptedReply, { type: 'json' }> {
  return {
    type: 'json',
    status: 400,
    body: {
      error: {
        message:
          "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry. To learn more about our content filtering policies please read our documentation: https://go.microsoft.com/fwlink/?linkid=2198766",
        type: null,
        param: 'prompt',
        code: 'content_filter',
        status: 400,
        innererror: { code: 'ResponsibleAIPolicyViolation', content_filter_result: filterResults(filtered) },
      },
    },
  };
}

/** A stream's first chunk on Azure: the prompt's filter results, no choice, an empty id and model, `created: 0`. */
export function promptFilterChunk(): Record<string, unknown> {
  return {
    choices: [],
    created: 0,
    id: '',
    model: '',
    object: '',
    prompt_filter_results: [{ prompt_index: 0, content_filter_results: filterResults() }],
  };
}

/** An OpenAI chunk as Azure sends it: each choice with its `content_filter_results`. */
export function withFilterResults(chunk: ReturnType<typeof chatChunk>, filtered: string[] = []): Record<string, unknown> {
  return { ...chunk, choices: chunk.choices.map((choice) => ({ ...choice, content_filter_results: filterResults(filtered) })) };
}

/**
 * A stream as Azure sends it: the prompt filter chunk, the pieces, the finish (`stop`, or
 * `content_filter` with the filtered categories), a filter-results chunk for the finished
 * choice, then the usage chunk.
 */
export function azureStreamReply(
  texts: string[],
  usage: ChatUsage & { cached?: number },
  options: { model?: string; filtered?: string[] } = {},
): ScriptedReply {
  const model = options.model ?? 'gpt-4o-2024-11-20';
  const filtered = options.filtered ?? [];
  const finish = filtered.length > 0 ? 'content_filter' : 'stop';
  const events: SseStep[] = [
    { data: promptFilterChunk() },
    { data: withFilterResults(chatChunk({ role: 'assistant', content: '' }, null, model)) },
    ...texts.map((text) => ({ data: withFilterResults(chatChunk({ content: text }, null, model)) })),
    { data: withFilterResults(chatChunk({}, finish, model), filtered) },
    { data: withFilterResults(chatChunk({}, null, model), filtered) },
    { data: usageChunk(usage, model) },
  ];
  return { type: 'sse', events };
}

function usageChunk(usage: ChatUsage & { cached?: number }, model: string): Record<string, unknown> {
  const chunk = chatUsageChunk(usage, model);
  return { ...chunk, usage: { ...chunk.usage, prompt_tokens_details: { cached_tokens: usage.cached ?? 0 } } };
}

/** A chat completion as Azure answers it: prompt filter results, per-choice filter results, cached tokens. */
export function azureCompletionReply(
  message: Record<string, unknown>,
  usage: ChatUsage & { cached?: number },
  options: { finishReason?: string; filtered?: string[]; model?: string } = {},
): ScriptedReply {
  return {
    type: 'json',
    body: {
      id: 'chatcmpl-azure-1',
      object: 'chat.completion',
      created: 1_767_225_600,
      model: options.model ?? 'gpt-4o-2024-11-20',
      system_fingerprint: 'fp_azure',
      prompt_filter_results: [{ prompt_index: 0, content_filter_results: filterResults() }],
      choices: [
        {
          index: 0,
          message: { role: 'assistant', ...message },
          finish_reason: options.finishReason ?? 'stop',
          logprobs: null,
          content_filter_results: filterResults(options.filtered),
        },
      ],
      usage: {
        prompt_tokens: usage.prompt,
        completion_tokens: usage.completion,
        total_tokens: usage.prompt + usage.completion,
        prompt_tokens_details: { cached_tokens: usage.cached ?? 0 },
        completion_tokens_details: { reasoning_tokens: 0 },
      },
    },
  };
}

/**
 * A managed identity's token endpoint as Azure App Service and Container Apps expose it to the
 * identity library (`IDENTITY_ENDPOINT`, `IDENTITY_HEADER`;
 * https://learn.microsoft.com/azure/app-service/overview-managed-identity#rest-endpoint-reference):
 * GET with `api-version=2019-08-01`, `resource`, and the `X-IDENTITY-HEADER` secret (else 401).
 */
export interface MockManagedIdentityEndpoint extends MockUpstream<ScriptedReply> {
  /** The value of IDENTITY_HEADER. */
  secret: string;
}

export async function startMockManagedIdentityEndpoint(secret: string): Promise<MockManagedIdentityEndpoint> {
  const endpoint = await startMockUpstream<ScriptedReply>({
    basePath: '/msi/token',
    defaultReply: { type: 'json', status: 500, body: { error: 'no token scripted' } },
    answerFirst: (request) =>
      refusal(
        request.headers['x-identity-header'] === secret
          ? null
          : { type: 'json', status: 401, body: { statusCode: 401, message: 'Unauthorized: the X-IDENTITY-HEADER is missing or wrong.' } },
      ),
    sendOther: sendSse,
  });
  return { ...endpoint, secret };
}

/** The endpoint's token: `expires_on` in epoch seconds, as a string. */
export function managedIdentityTokenReply(token: string, expiresOnMs: number): ScriptedReply {
  return {
    type: 'json',
    body: {
      access_token: token,
      expires_on: String(Math.floor(expiresOnMs / 1000)),
      resource: 'https://cognitiveservices.azure.com',
      token_type: 'Bearer',
      client_id: '00000000-0000-0000-0000-000000000001',
    },
  };
}
