import fc from 'fast-check';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contract } from '../../contract';
import { listRoutes } from '../../contract/list-routes';
import { BASE_TEST_CONFIG, startTestGateway, type TestGateway } from '../helpers/test-gateway';
import { BODY_LIMIT, type Credentials, type FuzzRoute, requests } from './hostile-requests';

/**
 * Hostile input on every route (docs/errors.md): random and mutated bodies, headers,
 * methods, path parameters and query strings. Whatever arrives, the gateway never answers
 * 500, never crashes, and every error is the envelope of docs/errors.md with an
 * `x-request-id`. Bounded: FUZZ_RUNS requests per route (default 200); the seed is printed
 * on failure, and FUZZ_SEED=<seed> replays a run.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 200);
const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));

const CONFIG = `${BASE_TEST_CONFIG}
server: { body_limit_bytes: ${BODY_LIMIT} }
limits: { default_rpm: 1000000, default_tpm: 1000000000, usage_key_rpm: 1000000, usage_ip_rpm: 1000000, admin_auth_failures_per_minute: 1000000 }
`;

/** Routes a fuzzed request reaches with success now and then (the others need a session cookie or do not exist). */
const REACHABLE = new Set([
  'POST /v1/chat/completions',
  'POST /v1/embeddings',
  'POST /v1/responses',
  'POST /v1/messages',
  'POST /v1/messages/count_tokens',
  'GET /v1/usage/keys',
  'POST /v1/admin/accounts',
  'POST /v1/admin/accounts/:accountId/keys',
  'PATCH /v1/admin/keys/:keyId',
]);

describe('hostile input on every route', () => {
  let gw: TestGateway;
  let credentials: Credentials;
  let agent: Agent;
  const crashes: unknown[] = [];
  const onCrash = (error: unknown) => crashes.push(error);

  beforeAll(async () => {
    process.on('uncaughtException', onCrash);
    process.on('unhandledRejection', onCrash);
    gw = await startTestGateway({ configYaml: CONFIG });
    const accountId = await gw.createAccount('fuzz');
    credentials = {
      apiKey: (await gw.createKey(accountId)).key,
      usageKey: await gw.createUsageKey(accountId),
      accountId,
      victimKeyId: (await gw.createKey(accountId, { name: 'victim' })).id,
    };
    agent = new Agent({ connections: 8, keepAliveTimeout: 10_000 });
  });
  afterAll(async () => {
    process.off('uncaughtException', onCrash);
    process.off('unhandledRejection', onCrash);
    await agent?.close();
    await gw?.close();
  });

  const routes: FuzzRoute[] = [
    ...listRoutes(contract).map((route) => ({
      method: route.method,
      path: route.path,
      auth: (route.metadata as { auth?: string } | undefined)?.auth,
    })),
    { method: 'GET', path: '/docs' },
    { method: 'GET', path: '/metrics' },
    { method: 'POST', path: '/v1/completions' },
    { method: 'GET', path: '/v1/models/:modelId' },
  ];

  it.each(routes.map((route) => [`${route.method} ${route.path}`, route] as const))(
    '%s: never a 500, never a crash, always the envelope',
    async (_name, route) => {
      const statuses = new Set<number>();
      const property = fc.asyncProperty(requests(route, credentials), async (sent) => {
        const response = await request(`${gw.baseUrl}${sent.path}`, {
          dispatcher: agent,
          method: sent.method,
          headers: sent.headers,
          body: sent.body ?? undefined,
          headersTimeout: 10_000,
          bodyTimeout: 10_000,
        });
        const text = await response.body.text();
        statuses.add(response.statusCode);
        const where = `${sent.method} ${sent.path.slice(0, 200)} (${sent.note}) -> ${response.statusCode} ${text.slice(0, 300)}`;
        expect(response.statusCode, where).not.toBe(500);
        expect(response.statusCode, where).toBeLessThan(600);
        expect(response.headers['x-request-id'], where).toBeTruthy();
        if (response.statusCode >= 400 && sent.method !== 'HEAD' && !(route.path === '/readyz' && response.statusCode === 503)) {
          expect(String(response.headers['content-type']), where).toMatch(/^application\/json/);
          const body = JSON.parse(text) as { error?: Record<string, unknown> };
          if (sent.path.startsWith('/v1/messages')) {
            // docs/anthropic-messages.md: Anthropic's error shape on these routes.
            expect(body, where).toEqual({ type: 'error', error: { type: expect.any(String), message: expect.any(String) } });
            return;
          }
          expect(Object.keys(body), where).toEqual(['error']);
          expect(body.error, where).toEqual({
            message: expect.any(String),
            type: expect.any(String),
            param: body.error?.param === null ? null : expect.any(String),
            code: body.error?.code === null ? null : expect.any(String),
          });
        }
      });
      try {
        await fc.assert(property, { numRuns: RUNS, seed: SEED, endOnFailure: true, includeErrorInReport: true });
      } catch (error) {
        throw new Error(
          `fuzz failure on ${route.method} ${route.path}; replay with FUZZ_SEED=${SEED}\n${error instanceof Error ? error.message : String(error)}`,
          { cause: error },
        );
      }
      expect(crashes).toEqual([]);
      // The mutations must also get past validation sometimes, or only the front door was tested.
      if (REACHABLE.has(`${route.method} ${route.path}`))
        expect(
          [...statuses].some((status) => status < 300),
          [...statuses].join(','),
        ).toBe(true);
    },
    60_000,
  );

  it('is still up and answering afterwards', async () => {
    expect((await gw.http.get('/healthz')).status).toBe(200);
    const chat = await gw.http
      .post('/v1/chat/completions')
      .set('authorization', `Bearer ${credentials.apiKey}`)
      .send({ model: 'mock-chat', messages: [{ role: 'user', content: 'still there?' }] });
    expect(chat.status).toBe(200);
    expect(crashes).toEqual([]);
  });
});
