import { randomBytes } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deployment } from '../../contract';
import { startMockOpenAiUpstream, type MockOpenAiUpstream } from '../helpers/mock-openai-upstream';
import type { TestGatewayOptions } from '../helpers/test-gateway';
import { fleetConfig, LETTERS, OK, type Letter } from '../routing/fleet';
import { useCliGateway } from './cli-harness';

/**
 * docs/cli.md, `deployments`: the deployments as GET /v1/admin/deployments shows them (without
 * the calls each server counts), the operator's switch, and with Redis the servers' cooldowns.
 */
const redisUrl = process.env.GATEWAY_TEST_REDIS_URL;
/** The key prefix of `serve` (and so of the CLI): this file's gateway uses it too. */
const SERVE_PREFIX = 'mg:rl:';
const configFile = join(tmpdir(), `cli-deployments-${randomBytes(6).toString('hex')}.yaml`);

type Listed = Omit<Deployment, 'requests_5m' | 'errors_5m' | 'in_flight'>;

describe('model-gateway deployments', { timeout: 120_000 }, () => {
  const upstreams = {} as Record<Letter, MockOpenAiUpstream>;
  const options: TestGatewayOptions = { rateLimitPrefix: SERVE_PREFIX };
  beforeAll(async () => {
    for (const letter of LETTERS) {
      upstreams[letter] = await startMockOpenAiUpstream();
      upstreams[letter].setDefault(OK(letter));
    }
    options.configYaml = fleetConfig(upstreams, { routing: '{ strategy: priority }' });
    await writeFile(configFile, options.configYaml);
    return async () => {
      for (const letter of LETTERS) await upstreams[letter].close();
      await rm(configFile, { force: true });
    };
  });
  const harness = useCliGateway(options, { GATEWAY_CONFIG: configFile, ...(redisUrl ? { REDIS_URL: redisUrl } : {}) });
  afterAll(async () => {
    if (!redisUrl) return;
    const redis = new Redis(redisUrl);
    await redis.del(`${SERVE_PREFIX}routing:cooldowns`);
    redis.disconnect();
  });

  const served = async (id: string): Promise<Deployment | undefined> => {
    const response = await harness.gw.http.get('/v1/admin/deployments').set(harness.gw.admin()).expect(200);
    return (response.body as { data: Deployment[] }).data.find((deployment) => deployment.id === id);
  };

  it('lists the deployments as the admin route does, and disables and enables one on the running server', async () => {
    const listed = await harness.json<Listed[]>('deployments', 'list');
    const { requests_5m: _requests, errors_5m: _errors, in_flight: _inFlight, ...first } = (await served('dep-a')) as Deployment;
    expect(listed.map((deployment) => deployment.id)).toEqual(['dep-a', 'dep-b', 'dep-c', 'embed-a', 'embed-b']);
    expect(listed[0]).toEqual(first);
    expect(listed[0]).not.toHaveProperty('requests_5m');

    expect(await harness.json<Listed>('deployments', 'disable', 'dep-a')).toMatchObject({ id: 'dep-a', state: 'disabled' });
    await expect.poll(async () => (await served('dep-a'))?.state, { timeout: 10_000 }).toBe('disabled');
    const key = (await harness.gw.createKey(await harness.gw.createAccount())).key;
    expect((await harness.gw.chat(key, { model: 'fleet' }).expect(200)).headers['x-gateway-deployment']).toBe('dep-b');
    expect((await harness.json<Listed[]>('deployments', 'list'))[0]).toMatchObject({ id: 'dep-a', state: 'disabled' });

    expect(await harness.json<Listed>('deployments', 'enable', 'dep-a')).toMatchObject({ id: 'dep-a', state: 'healthy' });
    await expect.poll(async () => (await served('dep-a'))?.state, { timeout: 10_000 }).toBe('healthy');
  });

  it.skipIf(!redisUrl)('shows the cooldowns the servers share through Redis', async () => {
    upstreams.a.reply({
      type: 'json',
      status: 429,
      headers: { 'retry-after': '120' },
      body: { error: { message: 'Rate limit reached.', type: 'requests', param: null, code: 'rate_limit_exceeded' } },
    });
    const key = (await harness.gw.createKey(await harness.gw.createAccount())).key;
    expect((await harness.gw.chat(key, { model: 'fleet' }).expect(200)).headers['x-gateway-deployment']).toBe('dep-b');
    const cooling = await served('dep-a');
    expect(cooling).toMatchObject({ state: 'cooling_down' });
    // The cooldown reaches the Redis hash after the reply: the CLI reads it once it is there.
    await expect
      .poll(async () => (await harness.json<Listed[]>('deployments', 'list'))[0], { timeout: 10_000 })
      .toMatchObject({ id: 'dep-a', state: 'cooling_down', cooldown_until: cooling?.cooldown_until });
  });

  it('refuses an unknown deployment and a missing id with one line', async () => {
    for (const [args, message] of [
      [['deployments', 'disable', 'nope'], /No deployment "nope"/],
      [['deployments', 'enable'], /deployments enable needs a deployment id/],
      [['deployments', 'drop', 'dep-a'], /unknown command "deployments drop"/],
    ] as const) {
      const result = await harness.cli(...args);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(message);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});
