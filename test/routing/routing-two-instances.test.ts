import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deployment } from '../../contract';
import { startMockOpenAiUpstream, type MockOpenAiUpstream } from '../helpers/mock-openai-upstream';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway';
import { fleetConfig, LETTERS, OK, type Letter } from './fleet';

/**
 * docs/routing.md, "Several instances": two gateways on one database and one Redis share the
 * deployments' cooldowns, the operator's disables and the session bindings.
 */
const redisUrl = process.env.GATEWAY_TEST_REDIS_URL;

describe.skipIf(!redisUrl)('routing state shared by two instances over Redis', () => {
  const upstreams = {} as Record<Letter, MockOpenAiUpstream>;
  let first: TestGateway;
  let second: TestGateway;
  let key = '';

  beforeAll(async () => {
    for (const letter of LETTERS) {
      upstreams[letter] = await startMockOpenAiUpstream();
      upstreams[letter].setDefault(OK(letter));
    }
    const shared = {
      configYaml: fleetConfig(upstreams, { routing: '{ strategy: priority, affinity: session }' }),
      rateLimitPrefix: `mg:test:${randomBytes(6).toString('hex')}:`,
      env: { REDIS_URL: redisUrl ?? '' },
    };
    first = await startTestGateway(shared);
    second = await startTestGateway({ ...shared, databaseUrl: first.databaseUrl });
    key = (await first.createKey(await first.createAccount())).key;
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
    for (const letter of LETTERS) await upstreams[letter]?.close();
  });

  const stateOf = async (gateway: TestGateway, id: string): Promise<Deployment | undefined> => {
    const response = await gateway.http.get('/v1/admin/deployments').set(gateway.admin()).expect(200);
    return (response.body as { data: Deployment[] }).data.find((deployment) => deployment.id === id);
  };

  it('keeps a session on its deployment from one instance to the other', async () => {
    // With dep-a disabled the session starts on dep-b (priority); then dep-a is back.
    await first.http.patch('/v1/admin/deployments/dep-a').set(first.admin()).send({ enabled: false }).expect(200);
    const session = { 'x-session-id': `session-${randomBytes(4).toString('hex')}` };
    const started = await first.chat(key, { model: 'fleet' }).set(session).expect(200);
    expect(started.headers['x-gateway-deployment']).toBe('dep-b');
    await first.http.patch('/v1/admin/deployments/dep-a').set(first.admin()).send({ enabled: true }).expect(200);
    await expect.poll(async () => (await stateOf(second, 'dep-a'))?.state).toBe('healthy');
    // The other instance sends a request without a session to dep-a, the session's to dep-b.
    const plain = await second.chat(key, { model: 'fleet' }).expect(200);
    expect(plain.headers['x-gateway-deployment']).toBe('dep-a');
    const resumed = await second.chat(key, { model: 'fleet' }).set(session).expect(200);
    expect(resumed.headers['x-gateway-deployment']).toBe('dep-b');
  });

  it('cools a deployment down on the other instance too: its traffic goes elsewhere there', async () => {
    const calledBefore = upstreams.a.requests.length;
    upstreams.a.reply({
      type: 'json',
      status: 429,
      headers: { 'retry-after': '60' },
      body: { error: { message: 'slow down', type: 'requests', param: null, code: null } },
    });
    const answered = await first.chat(key, { model: 'fleet' }).expect(200);
    expect(answered.headers['x-gateway-deployment']).toBe('dep-b');
    await expect.poll(async () => (await stateOf(second, 'dep-a'))?.state).toBe('cooling_down');
    const elsewhere = await second.chat(key, { model: 'fleet' }).expect(200);
    expect(elsewhere.headers['x-gateway-deployment']).toBe('dep-b');
    expect(upstreams.a.requests).toHaveLength(calledBefore + 1);
  });

  it("applies the operator's disable on every instance at once", async () => {
    await first.http.patch('/v1/admin/deployments/dep-b').set(first.admin()).send({ enabled: false }).expect(200);
    await expect.poll(async () => (await stateOf(second, 'dep-b'))?.state).toBe('disabled');
    const response = await second.chat(key, { model: 'fleet' }).expect(200);
    expect(response.headers['x-gateway-deployment']).toBe('dep-c');
    await first.http.patch('/v1/admin/deployments/dep-b').set(first.admin()).send({ enabled: true }).expect(200);
    await expect.poll(async () => (await stateOf(second, 'dep-b'))?.state).toBe('healthy');
  });
});
