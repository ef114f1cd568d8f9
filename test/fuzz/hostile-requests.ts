import fc from 'fast-check';
import { TEST_ADMIN_TOKEN } from '../helpers/test-gateway';

/**
 * The requests of the hostile-input fuzz test (hostile-input.test.ts), as fast-check
 * arbitraries: per route, mutations of a valid body, wrong or broken credentials, hostile path
 * parameters, query strings, content types and other headers.
 */

/** The body limit of the fuzzed gateway's configuration: one mutation goes past it. */
export const BODY_LIMIT = 32 * 1024;

export interface Credentials {
  apiKey: string;
  usageKey: string;
  accountId: string;
  /** A key the admin routes may revoke or block at will (not the one the model routes use). */
  victimKeyId: string;
}

export interface FuzzRoute {
  method: string;
  path: string;
  /** The contract's `metadata.auth`: which credential the route wants. */
  auth?: string;
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'];

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

export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | null;
  note: string;
}

/** One request to `route`: mostly its own method and credential, so that many get past validation. */
export function requests(route: FuzzRoute, credentials: Credentials): fc.Arbitrary<FuzzRequest> {
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
