import { generateKeyPairSync, createSign, createVerify, type KeyObject } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sendAnthropicSse, type AnthropicSseReply } from './mock-anthropic-upstream';
import { sendGeminiReply, type GeminiReply } from './mock-gemini-upstream';
import { startMockUpstream, type CommonReply, type MockUpstream, type RecordedRequest, type ServiceAnswer } from './mock-upstream';

/**
 * A local Vertex AI (https://cloud.google.com/vertex-ai/docs/reference/rest) for adapter and
 * end-to-end tests, with Google's token endpoints beside it. What Google checks, it checks:
 * - `POST /token`, the OAuth 2.0 JWT bearer grant of a service account
 *   (https://developers.google.com/identity/protocols/oauth2/service-account#httprest): the
 *   assertion's RS256 signature against the service account's public key, its issuer,
 *   audience, scope and expiry; `invalid_grant` otherwise.
 * - `POST /v1/token`, the Security Token Service exchange of workload identity federation
 *   (https://cloud.google.com/iam/docs/reference/sts/rest/v1/TopLevel/token): the subject
 *   token's signature against the identity provider's key, its audience and expiry.
 * - every model call (`/v1/projects/…`): a bearer token it issued and that has not expired;
 *   401 UNAUTHENTICATED otherwise (those calls are in `refused`, not in `requests`).
 * Replies: Gemini's (mock-gemini-upstream.ts) on `publishers/google`, Anthropic's
 * (mock-anthropic-upstream.ts) on `publishers/anthropic`.
 */

export type { RecordedRequest };

/** `sse` replies are Gemini's `alt=sse` on Gemini models and Anthropic's events on Claude models; `candidates` is Gemini's. */
export type MockReply = CommonReply | GeminiReply | AnthropicSseReply;

export interface MockVertexUpstream extends MockUpstream<MockReply> {
  /** A service-account key file whose public key the token endpoint knows. */
  serviceAccountFile: string;
  /** A workload identity federation credential file: token_url at this mock, a signed subject token. */
  externalAccountFile: string;
  /** The token endpoint's address (`/token`) that Google's auth library calls for service accounts. */
  tokenUrl: string;
  /** Tokens issued, in order, with what was exchanged for them. */
  issued: { token: string; grant: 'jwt-bearer' | 'token-exchange'; expiresAt: number }[];
  /** Model calls refused for a missing, unknown or expired token. */
  refused: RecordedRequest[];
  /** `expires_in` (seconds) of the tokens issued from now on; 3600 by default, as Google's. */
  setTokenLifetime(seconds: number): void;
}

export const MOCK_SERVICE_ACCOUNT_EMAIL = 'gateway@mock-project.iam.gserviceaccount.com';
export const MOCK_WORKLOAD_AUDIENCE = '//iam.googleapis.com/projects/123456/locations/global/workloadIdentityPools/gateway/providers/mock';
/** The audience Google's auth library signs service-account assertions for. */
const GOOGLE_TOKEN_AUDIENCE = 'https://oauth2.googleapis.com/token';
const CLOUD_PLATFORM = 'https://www.googleapis.com/auth/cloud-platform';

export async function startMockVertexUpstream(): Promise<MockVertexUpstream> {
  const serviceAccount = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const identityProvider = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const issued: MockVertexUpstream['issued'] = [];
  const refused: RecordedRequest[] = [];
  let lifetimeSeconds = 3600;

  function issue(grant: 'jwt-bearer' | 'token-exchange'): ServiceAnswer {
    const token = `ya29.mock-${issued.length + 1}-${Math.random().toString(36).slice(2)}`;
    issued.push({ token, grant, expiresAt: Date.now() + lifetimeSeconds * 1000 });
    const body =
      grant === 'jwt-bearer'
        ? { access_token: token, expires_in: lifetimeSeconds, token_type: 'Bearer' }
        : {
            access_token: token,
            expires_in: lifetimeSeconds,
            token_type: 'Bearer',
            issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
          };
    return ownAnswer(200, body);
  }

  function answerFirst(recorded: RecordedRequest): ServiceAnswer | null {
    const path = recorded.path.split('?')[0];
    if (recorded.method === 'POST' && path === '/token') {
      const form = new URLSearchParams(recorded.rawBody);
      const claims =
        form.get('grant_type') === 'urn:ietf:params:oauth:grant-type:jwt-bearer'
          ? verifyJwt(form.get('assertion'), serviceAccount.publicKey)
          : null;
      const valid =
        claims !== null &&
        claims.iss === MOCK_SERVICE_ACCOUNT_EMAIL &&
        claims.aud === GOOGLE_TOKEN_AUDIENCE &&
        typeof claims.scope === 'string' &&
        claims.scope.split(' ').includes(CLOUD_PLATFORM) &&
        typeof claims.exp === 'number' &&
        claims.exp * 1000 > Date.now();
      return valid ? issue('jwt-bearer') : ownAnswer(400, { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' });
    }
    if (recorded.method === 'POST' && path === '/v1/token') {
      const form = new URLSearchParams(recorded.rawBody);
      const claims = verifyJwt(form.get('subject_token'), identityProvider.publicKey);
      const valid =
        claims !== null &&
        form.get('grant_type') === 'urn:ietf:params:oauth:grant-type:token-exchange' &&
        form.get('audience') === MOCK_WORKLOAD_AUDIENCE &&
        claims.aud === `https:${MOCK_WORKLOAD_AUDIENCE}` &&
        typeof claims.exp === 'number' &&
        claims.exp * 1000 > Date.now();
      return valid
        ? issue('token-exchange')
        : ownAnswer(400, { error: 'invalid_grant', error_description: 'The subject token could not be verified.' });
    }
    if (path?.startsWith('/v1/projects/')) {
      const header = recorded.headers.authorization ?? '';
      const token = header.startsWith('Bearer ') ? header.slice('Bearer '.length) : '';
      const known = issued.find((entry) => entry.token === token);
      if (known && known.expiresAt > Date.now()) return null;
      refused.push(recorded);
      return ownAnswer(401, {
        error: {
          code: 401,
          message: 'Request had invalid authentication credentials. Expected OAuth 2 access token.',
          status: 'UNAUTHENTICATED',
        },
      });
    }
    return null;
  }

  const upstream = await startMockUpstream<MockReply>({
    jsonContentType: 'application/json; charset=UTF-8',
    defaultReply: {
      type: 'json',
      status: 500,
      body: { error: { code: 500, message: 'The mock has no scripted reply.', status: 'INTERNAL' } },
    },
    answerFirst,
    sendOther: (reply, response, recorded) =>
      recorded.path.includes('/publishers/anthropic/')
        ? sendAnthropicSse(reply as AnthropicSseReply, response, recorded)
        : sendGeminiReply(reply, response, recorded),
  });

  const directory = mkdtempSync(join(tmpdir(), 'mock-vertex-'));
  const serviceAccountFile = join(directory, 'service-account.json');
  writeFileSync(
    serviceAccountFile,
    JSON.stringify({
      type: 'service_account',
      project_id: 'mock-project',
      private_key_id: 'mock-key-1',
      private_key: serviceAccount.privateKey.export({ type: 'pkcs8', format: 'pem' }),
      client_email: MOCK_SERVICE_ACCOUNT_EMAIL,
      client_id: '100000000000000000001',
      token_uri: GOOGLE_TOKEN_AUDIENCE,
    }),
  );
  const subjectTokenFile = join(directory, 'oidc-token');
  const issuedAt = Math.floor(Date.now() / 1000);
  writeFileSync(
    subjectTokenFile,
    signJwt(
      { iss: 'https://idp.mock', sub: 'gateway', aud: `https:${MOCK_WORKLOAD_AUDIENCE}`, iat: issuedAt, exp: issuedAt + 10 * 365 * 86400 },
      identityProvider.privateKey,
    ),
  );
  const externalAccountFile = join(directory, 'external-account.json');
  writeFileSync(
    externalAccountFile,
    JSON.stringify({
      type: 'external_account',
      audience: MOCK_WORKLOAD_AUDIENCE,
      subject_token_type: 'urn:ietf:params:oauth:token-type:jwt',
      token_url: `${upstream.baseUrl}/v1/token`,
      credential_source: { file: subjectTokenFile },
    }),
  );

  return {
    ...upstream,
    serviceAccountFile,
    externalAccountFile,
    tokenUrl: `${upstream.baseUrl}/token`,
    issued,
    refused,
    setTokenLifetime: (seconds) => {
      lifetimeSeconds = seconds;
    },
  };
}

/** A JSON answer of Google's own (a token, a refusal): not among the model calls in `requests`. */
function ownAnswer(status: number, body: unknown): ServiceAnswer {
  return { reply: { type: 'json', status, body }, recorded: false };
}

function base64url(data: Buffer | string): string {
  return Buffer.from(data).toString('base64url');
}

function signJwt(claims: Record<string, unknown>, key: KeyObject): string {
  const input = `${base64url(JSON.stringify({ alg: 'RS256', typ: 'JWT' }))}.${base64url(JSON.stringify(claims))}`;
  const signature = createSign('RSA-SHA256').update(input).sign(key);
  return `${input}.${base64url(signature)}`;
}

/** The claims of an RS256 JWT signed by `key`, or null (bad form, algorithm or signature). */
function verifyJwt(token: string | null, key: KeyObject): Record<string, unknown> | null {
  const [header, payload, signature] = (token ?? '').split('.');
  if (!header || !payload || !signature) return null;
  try {
    const head = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { alg?: unknown };
    if (head.alg !== 'RS256') return null;
    const valid = createVerify('RSA-SHA256').update(`${header}.${payload}`).verify(key, Buffer.from(signature, 'base64url'));
    if (!valid) return null;
    return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    return null;
  }
}
