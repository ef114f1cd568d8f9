import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { keyCreateArgs, useCliGateway } from './cli-harness';

/** docs/cli.md and docs/operator-controls.md: spend budgets from the CLI, enforced by a running gateway. */
const harness = useCliGateway({ keyRefreshIntervalMs: 100 });
const { cli, json } = harness;

describe('model-gateway CLI, spend budgets', { timeout: 120_000 }, () => {
  it('sets, checks and removes budgets on accounts and keys', async () => {
    const account = await json<{ id: string }>('accounts', 'create', '--name', 'Budget by CLI');
    const limited = await json<Record<string, unknown>>(
      'accounts',
      'limits',
      account.id,
      '--budget-usd',
      '1',
      '--budget-period',
      'month',
      '--budget-alert',
      '0.8',
    );
    expect(limited).toMatchObject({ budget: { amount_usd: 1, period: 'month', alert_at: [0.8] } });

    const over = await cli(...keyCreateArgs(account.id, '--budget-usd', '2', '--budget-period', 'day'));
    expect(over.code).toBe(1);
    expect(over.stderr).toMatch(/budget 2 USD exceeds the account's budget of 1 USD/);
    const noPeriod = await cli(...keyCreateArgs(account.id, '--budget-usd', '0.5'));
    expect(noPeriod.code).toBe(1);
    expect(noPeriod.stderr).toMatch(/--budget-period/);
    const badPeriod = await cli(...keyCreateArgs(account.id, '--budget-usd', '0.5', '--budget-period', 'year'));
    expect(badPeriod.stderr).toMatch(/Invalid value for --budget-period/);

    const key = await json<{ id: string; key: string; budget: unknown }>(
      ...keyCreateArgs(account.id, '--budget-usd', '0.000001', '--budget-period', 'total'),
    );
    expect(key.budget).toEqual({ amount_usd: 0.000001, period: 'total', alert_at: [] });
    // The running gateway enforces it: a chat's worst case is more than a micro-dollar.
    await sleep(300);
    const refused = await harness.gw.http
      .post('/v1/chat/completions')
      .set('authorization', `Bearer ${key.key}`)
      .send({ model: 'mock-chat', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('request_too_large');

    const removed = await json<{ budget: unknown }>('keys', 'limits', key.id, '--no-budget');
    expect(removed.budget).toBeNull();
    const both = await cli('keys', 'limits', key.id, '--no-budget', '--budget-usd', '1');
    expect(both.code).toBe(1);
    expect((await json<{ budget: unknown }>('accounts', 'limits', account.id, '--no-budget')).budget).toBeNull();
  });
});
