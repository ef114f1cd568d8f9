import { describe, expect, it } from 'vitest';
import type { DetailedUsageReport } from '../../contract';
import { chatCompletionReply } from '../helpers/mock-openai-upstream';
import { useFleet } from './fleet';

/**
 * docs/routing.md, "Usage and metrics": the admin usage report splits each model's usage by the
 * deployment that answered; the model's figures are the sum of its deployments', billed at the
 * model's prices.
 */
describe('usage split by deployment', () => {
  const fleet = useFleet({ routing: '{ strategy: priority, affinity: none }' });

  it('lists each deployment’s requests, tokens and spend under its model, which sums them', async () => {
    const { gateway } = fleet;
    const accountId = await gateway.createAccount();
    const { key } = await gateway.createKey(accountId);
    // dep-a (first by priority) answers two requests, then rate-limits one for a minute: dep-b answers it.
    fleet.upstreams.a.setDefault(chatCompletionReply('from a', { prompt: 1_000, completion: 10 }));
    fleet.upstreams.b.setDefault(chatCompletionReply('from b', { prompt: 3_000, completion: 30 }));
    for (let index = 0; index < 2; index++) await gateway.chat(key, { model: 'fleet' }).expect(200);
    fleet.upstreams.a.reply({
      type: 'json',
      status: 429,
      headers: { 'retry-after': '60' },
      body: { error: { message: 'Rate limit reached.', type: 'requests', param: null, code: 'rate_limit_exceeded' } },
    });
    expect((await gateway.chat(key, { model: 'fleet' }).expect(200)).headers['x-gateway-deployment']).toBe('dep-b');
    await gateway.gateway.recorder?.flush();

    const report = (await gateway.http.get(`/v1/admin/accounts/${accountId}/usage`).set(gateway.admin()).expect(200))
      .body as DetailedUsageReport;
    const models = report.keys[0]?.models;
    // 1 and 2 USD per million prompt and completion tokens.
    expect(models).toEqual([
      expect.objectContaining({
        model: 'fleet',
        requests: 3,
        prompt_tokens: 5_000,
        completion_tokens: 50,
        spend_usd: 0.0051,
        deployments: [
          expect.objectContaining({ deployment: 'dep-a', requests: 2, prompt_tokens: 2_000, completion_tokens: 20, spend_usd: 0.00204 }),
          expect.objectContaining({ deployment: 'dep-b', requests: 1, prompt_tokens: 3_000, completion_tokens: 30, spend_usd: 0.00306 }),
        ],
      }),
    ]);
  });
});
