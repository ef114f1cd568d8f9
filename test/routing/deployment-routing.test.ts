import { describe, expect, it } from 'vitest';
import { chatStreamReply, chatTextChunks, embeddingsReply } from '../helpers/mock-openai-upstream';
import { LETTERS, OK, useFleet, type Letter } from './fleet';

/** docs/routing.md: a model served by three deployments, each its own mock upstream. */

type Fleet = ReturnType<typeof useFleet>;

async function chatMany(fleet: Fleet, count: number, body: Record<string, unknown> = {}): Promise<(string | undefined)[]> {
  const deployments: (string | undefined)[] = [];
  for (let index = 0; index < count; index++) {
    const response = await fleet.gateway.chat(fleet.key, { model: 'fleet', ...body }).expect(200);
    deployments.push(response.headers['x-gateway-deployment']);
  }
  return deployments;
}

const RATE_LIMITED = (retryAfterSeconds: number) => ({
  type: 'json' as const,
  status: 429,
  headers: { 'retry-after': String(retryAfterSeconds) },
  body: { error: { message: 'Rate limit reached.', type: 'requests', param: null, code: 'rate_limit_exceeded' } },
});
const SERVER_ERROR = {
  type: 'json' as const,
  status: 500,
  body: { error: { message: 'Internal error.', type: 'server_error', param: null, code: null } },
};
const BAD_REQUEST = {
  type: 'json' as const,
  status: 400,
  body: { error: { message: 'Bad messages.', type: 'invalid_request_error', param: 'messages', code: null } },
};

describe('weighted routing over three deployments', () => {
  const fleet = useFleet({ routing: '{ affinity: none }', deployments: { a: 'weight: 2' } });

  it('splits the traffic by weight, within statistical bounds, and names the deployment on every reply', async () => {
    const counts = fleet.counts(await chatMany(fleet, 240));
    // Expected 120 / 60 / 60; five standard deviations (7.7 and 6.7 requests) either side.
    expect(counts['dep-a']).toBeGreaterThan(120 - 39);
    expect(counts['dep-a']).toBeLessThan(120 + 39);
    expect(counts['dep-b']).toBeGreaterThan(60 - 34);
    expect(counts['dep-c']).toBeGreaterThan(60 - 34);
    expect(counts.none).toBeUndefined();
    expect(fleet.upstreams.a.requests).toHaveLength(counts['dep-a'] ?? 0);
  });

  it('moves off a deployment that answers 429 with retry-after, without an error for the client, until the time is up', async () => {
    fleet.upstreams.a.reply(RATE_LIMITED(30));
    fleet.upstreams.b.reply(RATE_LIMITED(30));
    // The first request meets both 429s at most: it is answered by c, or by whichever was not tried.
    const first = await chatMany(fleet, 1);
    expect(first[0]).toMatch(/^dep-/);
    const cooled = LETTERS.filter((letter) => fleet.upstreams[letter].requests.length > 0 && `dep-${letter}` !== first[0]);
    const spread = fleet.counts(await chatMany(fleet, 30));
    for (const letter of cooled) expect(spread[`dep-${letter}`]).toBeUndefined();
    // 31 seconds later the cooled deployments are back.
    fleet.clock.now += 31_000;
    const after = fleet.counts(await chatMany(fleet, 60));
    for (const letter of cooled) expect(after[`dep-${letter}`]).toBeGreaterThan(0);
  });

  it('never cools a deployment for a caller error, and passes the 400 on', async () => {
    for (const letter of LETTERS) fleet.upstreams[letter].setDefault(BAD_REQUEST);
    const refused = await fleet.gateway.chat(fleet.key, { model: 'fleet' }).expect(400);
    expect((refused.body as { error: { code: string } }).error.code).toBe('upstream_rejected');
    // One call, no retry elsewhere; then every deployment still takes traffic.
    expect(LETTERS.reduce((sum, letter) => sum + fleet.upstreams[letter].requests.length, 0)).toBe(1);
    for (const letter of LETTERS) fleet.upstreams[letter].setDefault(OK(letter));
    const counts = fleet.counts(await chatMany(fleet, 60));
    expect(Object.keys(counts).sort()).toEqual(['dep-a', 'dep-b', 'dep-c']);
  });

  it('answers one 502 after the configured tries when every deployment fails, then tries the one cooling down the shortest', async () => {
    for (const letter of LETTERS) fleet.upstreams[letter].setDefault(SERVER_ERROR);
    const failed = await fleet.gateway.chat(fleet.key, { model: 'fleet' }).expect(502);
    expect((failed.body as { error: { code: string } }).error.code).toBe('upstream_unavailable');
    // max_retries 2: three calls, one per deployment.
    expect(LETTERS.map((letter) => fleet.upstreams[letter].requests.length)).toEqual([1, 1, 1]);
    // Every deployment cools down now; a lone healthy answer still gets through on the first to be tried.
    fleet.upstreams.b.setDefault(OK('b'));
    fleet.upstreams.c.setDefault(OK('c'));
    const [answered] = await chatMany(fleet, 1);
    expect(['dep-b', 'dep-c']).toContain(answered);
  });

  it('never switches a stream that has started', async () => {
    // A stream that breaks after its first bytes ends with an error event, on the same deployment.
    for (const letter of LETTERS) {
      fleet.upstreams[letter].requests.length = 0;
      fleet.upstreams[letter].setDefault({ type: 'sse', events: [...chatTextChunks(['half']), { drop: true }], done: false });
    }
    const broken = await fleet.gateway.chat(fleet.key, { model: 'fleet', stream: true }).expect(200);
    expect(broken.text).toContain('"error"');
    expect(LETTERS.reduce((sum, letter) => sum + fleet.upstreams[letter].requests.length, 0)).toBe(1);
  });

  it('names the deployment on the embeddings, Messages and Responses routes too, JSON and streams', async () => {
    /** The deployment a 200 reply of `path` names (Messages authenticates with x-api-key, the others with a bearer). */
    const deploymentOf = async (path: string, body: object) => {
      const [header, value] = path === '/v1/messages' ? ['x-api-key', fleet.key] : ['authorization', `Bearer ${fleet.key}`];
      const reply = await fleet.gateway.http.post(path).set(header, value).send(body).expect(200);
      return reply.headers['x-gateway-deployment'];
    };
    for (const letter of ['a', 'b'] as Letter[]) fleet.upstreams[letter].setDefault(embeddingsReply([[0.1, 0.2]], 3));
    expect(await deploymentOf('/v1/embeddings', { model: 'fleet-embed', input: 'hello' })).toMatch(/^embed-[ab]$/);

    for (const letter of LETTERS) fleet.upstreams[letter].setDefault(OK(letter));
    const message = { model: 'fleet', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] };
    expect(await deploymentOf('/v1/messages', message)).toMatch(/^dep-[abc]$/);
    expect(await deploymentOf('/v1/responses', { model: 'fleet', input: 'hi' })).toMatch(/^dep-[abc]$/);

    for (const letter of LETTERS) fleet.upstreams[letter].setDefault(chatStreamReply(['hi'], { prompt: 5, completion: 1 }));
    expect(await deploymentOf('/v1/messages', { ...message, stream: true })).toMatch(/^dep-[abc]$/);
    expect(await deploymentOf('/v1/responses', { model: 'fleet', input: 'hi', stream: true })).toMatch(/^dep-[abc]$/);
  });
});

describe('priority tiers', () => {
  const fleet = useFleet({ routing: '{ affinity: none }', deployments: { c: 'priority: 1' } });

  it('sends nothing to a lower priority while one of the best is available, and everything once none is', async () => {
    const healthy = fleet.counts(await chatMany(fleet, 40));
    expect(healthy['dep-c']).toBeUndefined();
    expect((healthy['dep-a'] ?? 0) + (healthy['dep-b'] ?? 0)).toBe(40);

    fleet.upstreams.a.reply(RATE_LIMITED(60));
    fleet.upstreams.b.reply(RATE_LIMITED(60));
    await chatMany(fleet, 2);
    const reserve = fleet.counts(await chatMany(fleet, 10));
    expect(reserve).toEqual({ 'dep-c': 10 });
  });
});

describe('n > 1 over deployments of which one cannot return several choices', () => {
  const fleet = useFleet({
    routing: '{ affinity: none }',
    deployments: { a: 'priority: 1', b: 'priority: 1', c: 'priority: 1' },
    moreDeployments: '      - { id: dep-mock, provider: mock }',
  });

  it('goes only to the deployments that can, and fails rather than answering with one choice', async () => {
    // n = 1: the best priority, the mock provider's deployment, takes everything.
    expect(fleet.counts(await chatMany(fleet, 5))).toEqual({ 'dep-mock': 5 });
    const two = await fleet.gateway.chat(fleet.key, { model: 'fleet', n: 2 }).expect(200);
    expect(two.headers['x-gateway-deployment']).toMatch(/^dep-[abc]$/);
    expect(LETTERS.flatMap((letter) => fleet.upstreams[letter].requests.map((request) => request.body))).toEqual([
      expect.objectContaining({ n: 2 }),
    ]);
    for (const letter of LETTERS) fleet.upstreams[letter].setDefault(SERVER_ERROR);
    const failed = await fleet.gateway.chat(fleet.key, { model: 'fleet', n: 2 }).expect(502);
    expect(failed.headers['x-gateway-deployment']).toBeUndefined();
  });
});

describe('the priority strategy', () => {
  const fleet = useFleet({ routing: '{ strategy: priority, affinity: none }' });

  it('tries the deployments in file order, the next one at once after a failure', async () => {
    expect(fleet.counts(await chatMany(fleet, 5))).toEqual({ 'dep-a': 5 });
    fleet.upstreams.a.reply(SERVER_ERROR);
    expect(await chatMany(fleet, 1)).toEqual(['dep-b']);
    // a cools down (1 s, then doubling): b takes the traffic until then.
    expect(fleet.counts(await chatMany(fleet, 3))).toEqual({ 'dep-b': 3 });
    fleet.clock.now += 1_001;
    expect(await chatMany(fleet, 1)).toEqual(['dep-a']);
  });

  it('fails a stream over to the next deployment before its first byte', async () => {
    fleet.upstreams.a.reply(SERVER_ERROR);
    fleet.upstreams.b.reply(chatStreamReply(['from', ' b'], { prompt: 5, completion: 2 }));
    const response = await fleet.gateway.chat(fleet.key, { model: 'fleet', stream: true }).expect(200);
    expect(response.headers['x-gateway-deployment']).toBe('dep-b');
    expect(response.text).toContain('from');
    expect(response.text).toContain('[DONE]');
    expect(response.text).not.toContain('"error"');
    expect([fleet.upstreams.a.requests.length, fleet.upstreams.b.requests.length]).toEqual([1, 1]);
  });
});

describe('least-busy routing', () => {
  const fleet = useFleet({ routing: '{ strategy: least-busy, affinity: none }' });

  it('sends each new request to a deployment with the fewest calls in flight', async () => {
    const slow = (letter: Letter) => ({
      type: 'sse' as const,
      events: [
        ...chatTextChunks([`from ${letter}`]),
        { delayMs: 400, data: { choices: [], id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm' } },
      ],
    });
    for (const letter of LETTERS) fleet.upstreams[letter].setDefault(slow(letter));
    const sent = (): number => LETTERS.reduce((sum, letter) => sum + fleet.upstreams[letter].requests.length, 0);
    const streams = [];
    for (let index = 0; index < 3; index++) {
      streams.push(fleet.gateway.chat(fleet.key, { model: 'fleet', stream: true }).then((response) => response));
      // The next request is sent once this one is in flight.
      await expect.poll(sent).toBe(index + 1);
    }
    await Promise.all(streams);
    expect(LETTERS.map((letter) => fleet.upstreams[letter].requests.length)).toEqual([1, 1, 1]);
  });
});
