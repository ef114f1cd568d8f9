import fc from 'fast-check';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contract } from '../../contract';
import { listRoutes } from '../../contract/list-routes';
import { BASE_TEST_CONFIG, startTestGateway, TEST_ADMIN_TOKEN, type TestGateway } from '../helpers/test-gateway';

/**
 * Hostile input on every route (docs/errors.md): random and mutated bodies, headers,
 * methods, path parameters and query strings. Whatever arrives, the gateway never answers
 * 500, never crashes, and every error is the envelope of docs/errors.md with an
 * `x-request-id`. Bounded: FUZZ_RUNS requests per route (default 200); the seed is printed
 * on failure, and FUZZ_SEED=<seed> replays a run.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 200);
const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const BODY_LIMIT = 32 * 1024;

const CONFIG = `${BASE_TEST_CONFIG}
server: { body_limit_bytes: ${BODY_LIMIT} }
limits: { default_rpm: 1000000, default_tpm: 1000000000, usage_key_rpm: 1000000, usage_ip_rpm: 1000000, admin_auth_failures_per_minute: 1000000 }
`;

interface Credentials {
  apiKey: string;
  usageKey: string;
  accountId: string;
  /** A key the admin routes may revoke or block at will (not the one the model routes use). */
  victimKeyId: string;
}

interface FuzzRoute {
  method: string;
  path: string;
  /** The contract's `metadata.auth`: which credential the route wants. */
  auth?: string;
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'];
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

/** A valid body per route, the seed of the mutations (reaching past validation matters). */
function validBody(route: FuzzRoute): Record<string, unknown> {
  if (route.path === '/v1/chat/completions') return { model: 'mock-chat', messages: [{ role: 'user', content: 'hello' }], max_tokens: 5 };
  if (route.path === '/v1/responses') {
    return {
      model: 'mock-chat',
      instructions: 'be brief',
      input: [
        { role: 'developer', content: 'hi' },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hello' }] },
      ],
      tools: [{ type: 'function', name: 'f', parameters: { type: 'object' } }, { type: 'custom', name: 'c' }, { type: 'web_search' }],
      max_output_tokens: 5,
    };
  }
  if (route.path === '/v1/messages') {
    return {
      model: 'mock-chat',
      max_tokens: 5,
      system: [{ type: 'text', text: 'Be brief.' }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }],
    };
  }
  if (route.path === '/v1/messages/count_tokens') return { model: 'mock-chat', messages: [{ role: 'user', content: 'hello' }] };
  if (route.path === '/v1/embeddings') return { model: 'mock-embed', input: ['a', 'b'], dimensions: 256 };
  if (route.path.endsWith('/keys') && route.method === 'POST') return { name: 'fuzz', rpm: 10, tpm: 1000 };
  if (route.path === '/v1/admin/keys/:keyId') return { name: 'renamed', rpm: 20 };
  if (route.path === '/v1/admin/session') return { token: TEST_ADMIN_TOKEN };
  return { name: 'fuzz account' };
}

const printable = fc.string({ unit: fc.constantFrom(...'abcXYZ019 -_.:/=+%&?#[]{}"\'<>\\;,~!@$^*()|`'.split('')), maxLength: 60 });
const unicode = fc.string({ unit: 'binary', maxLength: 40 });
const hostileStrings = fc.oneof(
  printable,
  unicode,
  fc.constantFrom(
    '',
    ' ',
    'null',
    'undefined',
    'NaN',
    '-1',
    '0',
    '1e309',
    '__proto__',
    'constructor',
    '../../etc/passwd',
    '%00',
    '%ZZ',
    'a'.repeat(5000),
    '\u0000',
    '\uD800',
    '😀',
  ),
);

/** Any JSON value, plus the shapes that break naive code. */
const hostileJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(null, true, 0, -0, 1e308, -1e308, 2 ** 53 + 1, '', [], {}, [[[[]]]], { __proto__: { polluted: true } }),
  },
  { weight: 1, arbitrary: hostileStrings },
);

function mutations(route: FuzzRoute): fc.Arbitrary<{ body: string | null; note: string }> {
  const base = validBody(route);
  const fields = [
    ...Object.keys(base),
    'messages',
    'model',
    'stream',
    'input',
    'n',
    'tools',
    'response_format',
    'stream_options',
    'tool_choice',
    'text',
    'reasoning',
    'previous_response_id',
    '__proto__',
    'constructor',
    'prototype',
  ];
  const json = (value: unknown) => JSON.stringify(value) ?? 'null';
  return fc.oneof(
    { weight: 4, arbitrary: fc.constant({ body: json(base), note: 'valid' }) },
    {
      weight: 4,
      arbitrary: fc
        .tuple(fc.constantFrom(...fields), hostileJson)
        .map(([field, value]) => ({ body: json({ ...base, [field]: value }), note: `${field} replaced` })),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom(...Object.keys(base)).map((field) => ({
        body: json(Object.fromEntries(Object.entries(base).filter(([name]) => name !== field))),
        note: `${field} removed`,
      })),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(fc.nat({ max: 4 }), hostileJson).map(([index, value]) => ({
        body: json({ ...base, messages: [{ role: 'user', content: 'x' }, ...Array.from({ length: index }, () => value)] }),
        note: 'messages entries',
      })),
    },
    {
      weight: route.path === '/v1/responses' ? 2 : 0,
      arbitrary: fc
        .tuple(
          fc.nat({ max: 3 }),
          hostileJson,
          fc.constantFrom('message', 'function_call', 'function_call_output', 'custom_tool_call', 'reasoning', 'item_reference', 'x'),
        )
        .map(([index, value, type]) => ({
          body: json({
            ...base,
            input: [
              { role: 'user', content: 'x' },
              ...Array.from({ length: index }, () => value),
              { type, call_id: value, name: value, arguments: value, output: value, content: value, role: value },
            ],
          }),
          note: 'input items',
        })),
    },
    { weight: 1, arbitrary: fc.constant({ body: json({ ...base, stream: true }), note: 'stream' }) },
    { weight: 2, arbitrary: hostileJson.map((value) => ({ body: json(value), note: 'any JSON' })) },
    { weight: 1, arbitrary: hostileStrings.map((text) => ({ body: text, note: 'not JSON' })) },
    {
      weight: 1,
      arbitrary: fc.nat({ max: 20_000 }).map((depth) => ({ body: '['.repeat(depth) + ']'.repeat(depth), note: `nesting ${depth}` })),
    },
    { weight: 1, arbitrary: fc.constant({ body: json({ ...base, padding: 'x'.repeat(BODY_LIMIT) }), note: 'over the body limit' }) },
    { weight: 1, arbitrary: fc.constant({ body: '{"model": "mock-chat", "messages": [', note: 'truncated' }) },
    { weight: 1, arbitrary: fc.constant({ body: null, note: 'no body' }) },
  );
}

function authorization(route: FuzzRoute, credentials: Credentials): fc.Arbitrary<string | undefined> {
  const proper = {
    'api-key': `Bearer ${credentials.apiKey}`,
    'usage-key': `Bearer ${credentials.usageKey}`,
    admin: `Bearer ${TEST_ADMIN_TOKEN}`,
  }[route.auth ?? ''];
  return fc.oneof(
    // The right credential half the time, so that requests get past authentication too.
    { weight: 4, arbitrary: fc.constant(proper) },
    fc.constant(undefined),
    fc.constantFrom(`Bearer ${credentials.apiKey}`, `Bearer ${credentials.usageKey}`, `Bearer ${TEST_ADMIN_TOKEN}`),
    fc.constantFrom(
      `Basic ${Buffer.from('a:b').toString('base64')}`,
      'Bearer',
      'Bearer ',
      `bearer ${credentials.apiKey}`,
      `Bearer ${credentials.apiKey} extra`,
      `Bearer sk-${'A'.repeat(48)}`,
      `Bearer uk-${'A'.repeat(48)}`,
      `Bearer ${'x'.repeat(8000)}`,
    ),
    printable.map((text) => `Bearer ${text}`),
  );
}

/** Percent-encodes every byte of the UTF-8 form (lone surrogates become U+FFFD, as on the wire). */
const percentEncode = (value: string): string =>
  [...Buffer.from(value, 'utf8')].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');

/** Path segments sent as they are: broken escapes, traversal, overlong UTF-8. */
const RAW_SEGMENTS = ['%ZZ', '%', '%00', '..', '%2e%2e', '%C0%AF', '%FF%FE', 'a%2Fb', ';x=1'];

function pathFor(route: FuzzRoute, credentials: Credentials, parameter: fc.Arbitrary<string>): fc.Arbitrary<string> {
  const names = route.path.match(/:\w+/g) ?? [];
  if (names.length === 0) return fc.constant(route.path);
  const real = (name: string) => (name === ':accountId' ? credentials.accountId : credentials.victimKeyId);
  const segment = fc.oneof(
    { weight: 3, arbitrary: fc.constant(null) },
    { weight: 3, arbitrary: parameter.map(percentEncode) },
    { weight: 1, arbitrary: fc.constantFrom(...RAW_SEGMENTS) },
  );
  return fc.array(segment, { minLength: names.length, maxLength: names.length }).map((values) => {
    let path = route.path;
    names.forEach((name, index) => {
      const value = values[index];
      path = path.replace(name, value === null || value === undefined ? real(name) : value);
    });
    return path;
  });
}

const query = fc
  .array(
    fc.tuple(
      fc.constantFrom('start', 'end', 'model', 'limit', 'start[]', 'a[b]', '__proto__', 'x'),
      fc.oneof(fc.constantFrom('2026-11-20', '2026-02-30', '2026-13-01', '99999-01-01', '2026-11-20T00:00:00Z', '-1'), printable),
    ),
    { maxLength: 4 },
  )
  .map((pairs) =>
    pairs.length === 0 ? '' : `?${pairs.map(([name, value]) => `${percentEncode(name)}=${percentEncode(value)}`).join('&')}`,
  );

const contentType = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      undefined,
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/json; charset=utf-16',
      'application/json; charset=latin1',
      'application/vnd.api+json',
      'application/json;;;',
      '*/*',
    ),
  },
  { weight: 1, arbitrary: printable },
);

interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | null;
  note: string;
}

function requests(route: FuzzRoute, credentials: Credentials): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      method: fc.oneof({ weight: 5, arbitrary: fc.constant(route.method) }, { weight: 1, arbitrary: fc.constantFrom(...METHODS) }),
      path: pathFor(route, credentials, hostileStrings),
      query,
      authorization: authorization(route, credentials),
      contentType,
      body: mutations(route),
      requestId: fc.oneof(fc.constant(undefined), printable, fc.constant('a'.repeat(500))),
      cookie: fc.oneof(
        fc.constant(undefined),
        printable.map((value) => `mg_session=${value}`),
      ),
      encoding: fc.constantFrom(undefined, undefined, undefined, 'gzip', 'deflate', 'br', 'identity', 'bogus'),
      csrf: fc.oneof(fc.constant(undefined), printable),
    })
    .map((drawn) => {
      const headers: Record<string, string> = {};
      if (drawn.authorization !== undefined) headers.authorization = drawn.authorization;
      if (drawn.contentType !== undefined) headers['content-type'] = drawn.contentType;
      if (drawn.requestId !== undefined) headers['x-request-id'] = drawn.requestId;
      if (drawn.cookie !== undefined) headers.cookie = drawn.cookie;
      if (drawn.encoding !== undefined) headers['content-encoding'] = drawn.encoding;
      if (drawn.csrf !== undefined) headers['x-csrf-token'] = drawn.csrf;
      const withBody = drawn.method !== 'GET' && drawn.method !== 'HEAD';
      return {
        method: drawn.method,
        path: drawn.path + drawn.query,
        headers,
        body: withBody ? drawn.body.body : null,
        note: drawn.body.note,
      };
    });
}

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
