import { describe, expect, it } from 'vitest';
import type { Deployment } from '../../contract';
import { startTestGateway } from '../helpers/test-gateway';
import { fleetConfig, LETTERS, useFleet } from './fleet';

/** docs/routing.md, "Operator control": GET /v1/admin/deployments and PATCH /v1/admin/deployments/{id}. */

type Fleet = ReturnType<typeof useFleet>;

async function answeredBy(fleet: Fleet, count: number): Promise<Set<string>> {
  const deployments = new Set<string>();
  for (let index = 0; index < count; index++) {
    const response = await fleet.gateway.chat(fleet.key, { model: 'fleet' }).expect(200);
    deployments.add(response.headers['x-gateway-deployment'] as string);
  }
  return deployments;
}

async function listed(fleet: Fleet): Promise<Deployment[]> {
  const response = await fleet.gateway.http.get('/v1/admin/deployments').set(fleet.gateway.admin()).expect(200);
  return (response.body as { data: Deployment[] }).data;
}

describe('operator control of deployments', () => {
  const fleet = useFleet({ routing: '{ affinity: none }' });

  it('lists every deployment with its state, cooldown and recent traffic, to the operator only', async () => {
    fleet.upstreams.a.reply({
      type: 'json',
      status: 429,
      headers: { 'retry-after': '20' },
      body: { error: { message: 'slow down', type: 'requests', param: null, code: null } },
    });
    // The priority of a is not fixed: send until a has taken its 429.
    while (fleet.upstreams.a.requests.length === 0) await answeredBy(fleet, 1);
    const deployments = await listed(fleet);
    expect(deployments.map((deployment) => deployment.id)).toEqual(['dep-a', 'dep-b', 'dep-c', 'embed-a', 'embed-b']);
    const a = deployments[0];
    expect(a).toMatchObject({ model: 'fleet', provider: 'up-a', upstream_model: 'fleet', weight: 1, priority: 0, state: 'cooling_down' });
    expect(Date.parse(a?.cooldown_until ?? '')).toBe(fleet.clock.now + 20_000);
    expect(a?.requests_5m).toBe(1);
    expect(a?.errors_5m).toBe(1);
    expect(deployments.find((deployment) => deployment.id === 'embed-a')).toMatchObject({ state: 'healthy', requests_5m: 0, in_flight: 0 });

    const account = await fleet.gateway.createAccount();
    const { key } = await fleet.gateway.createKey(account);
    await fleet.gateway.http.get('/v1/admin/deployments').set('authorization', `Bearer ${key}`).expect(401);
  });

  it('disables a deployment: it gets nothing, is listed disabled, is audited; enabled again, it takes traffic', async () => {
    const disabled = await fleet.gateway.http
      .patch('/v1/admin/deployments/dep-b')
      .set(fleet.gateway.admin())
      .send({ enabled: false })
      .expect(200);
    expect(disabled.body).toMatchObject({ id: 'dep-b', state: 'disabled' });
    expect(await answeredBy(fleet, 30)).toEqual(new Set(['dep-a', 'dep-c']));
    expect(fleet.upstreams.b.requests).toHaveLength(0);

    const audit = await fleet.gateway.http.get('/v1/admin/audit').set(fleet.gateway.admin()).expect(200);
    expect((audit.body as { data: { action: string; target_id: string }[] }).data[0]).toMatchObject({
      action: 'deployment.disable',
      target_id: 'dep-b',
    });

    await fleet.gateway.http.patch('/v1/admin/deployments/dep-b').set(fleet.gateway.admin()).send({ enabled: true }).expect(200);
    expect(await answeredBy(fleet, 40)).toEqual(new Set(['dep-a', 'dep-b', 'dep-c']));
  });

  it('answers 503 when every deployment of a model is disabled, and 404 / 400 for an unknown id or a bad body', async () => {
    for (const id of ['embed-a', 'embed-b']) {
      await fleet.gateway.http.patch(`/v1/admin/deployments/${id}`).set(fleet.gateway.admin()).send({ enabled: false }).expect(200);
    }
    const refused = await fleet.gateway.http
      .post('/v1/embeddings')
      .set('authorization', `Bearer ${fleet.key}`)
      .send({ model: 'fleet-embed', input: 'hi' })
      .expect(503);
    expect((refused.body as { error: { code: string } }).error.code).toBe('no_deployment_available');
    expect(fleet.upstreams.a.requests).toHaveLength(0);

    const unknown = await fleet.gateway.http.patch('/v1/admin/deployments/nope').set(fleet.gateway.admin()).send({ enabled: false });
    expect(unknown.status).toBe(404);
    await fleet.gateway.http.patch('/v1/admin/deployments/dep-a').set(fleet.gateway.admin()).send({ enabled: 'no' }).expect(400);
  });

  it('keeps a disable across a restart on the same database', async () => {
    const restarted = await startTestGateway({
      configYaml: fleetConfig(fleet.upstreams, { routing: '{ affinity: none }' }),
      databaseUrl: fleet.gateway.databaseUrl,
    });
    try {
      const deployments = (await restarted.http.get('/v1/admin/deployments').set(restarted.admin()).expect(200)).body as {
        data: Deployment[];
      };
      expect(deployments.data.filter((deployment) => deployment.state === 'disabled').map((deployment) => deployment.id)).toEqual([
        'embed-a',
        'embed-b',
      ]);
    } finally {
      await restarted.close();
    }
    for (const letter of LETTERS) expect(fleet.upstreams[letter].requests).toHaveLength(0);
  });
});
