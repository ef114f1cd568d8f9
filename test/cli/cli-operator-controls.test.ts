import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { keyCreateArgs, useCliGateway } from './cli-harness';

/** docs/cli.md and docs/operator-controls.md: ceilings, allow-lists, expiry, rotation and the audit log from the CLI. */
const harness = useCliGateway({ keyRefreshIntervalMs: 100 });
const { cli, json } = harness;

describe('model-gateway CLI, operator controls', { timeout: 120_000 }, () => {
  it('ceilings, allow-lists, expiry, rotation, last use and the audit log', async () => {
    const account = await json<{ id: string }>('accounts', 'create', '--name', 'Controlled by CLI');
    const limited = await json<Record<string, unknown>>('accounts', 'limits', account.id, '--rpm', '60', '--models', 'mock-chat,mock-e*');
    expect(limited).toMatchObject({ rpm: 60, tpm: null, models: ['mock-chat', 'mock-e*'] });

    const tooMany = await cli(...keyCreateArgs(account.id, '--rpm', '61'));
    expect(tooMany.code).toBe(1);
    expect(tooMany.stderr).toMatch(/rpm 61 exceeds the account's ceiling of 60/);
    expect((await cli(...keyCreateArgs(account.id, '--models', ''))).code).toBe(1);
    expect((await cli(...keyCreateArgs(account.id, '--expires-at', 'tomorrow'))).code).toBe(1);

    const key = await json<{ id: string; key: string; models: string[]; expires_at: string }>(
      ...keyCreateArgs(account.id, '--models', 'mock-chat', '--expires-at', '2099-01-01T00:00:00Z'),
    );
    expect(key).toMatchObject({ models: ['mock-chat'], expires_at: '2099-01-01T00:00:00.000Z' });
    const chat = (text: string, model = 'mock-chat') =>
      harness.gw.http
        .post('/v1/chat/completions')
        .set('authorization', `Bearer ${text}`)
        .send({ model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 });
    expect((await chat(key.key)).status).toBe(200);
    expect((await chat(key.key, 'mock-text')).status).toBe(403);

    expect(await json('keys', 'limits', key.id, '--models', 'all')).toMatchObject({ models: null });
    expect(await json('keys', 'expiry', key.id, '--expires-at', 'never')).toMatchObject({ expires_at: null });

    const rotated = await json<{ id: string; key: string }>('keys', 'rotate', key.id, '--grace-seconds', '0');
    expect(rotated.id).toBe(key.id);
    expect(rotated.key).not.toBe(key.key);
    await sleep(400);
    expect((await chat(key.key)).status).toBe(401);
    expect((await chat(rotated.key)).status).toBe(200);

    await harness.gw.gateway.recorder?.flush();
    const listed = await json<Array<{ id: string; last_used_at: string | null }>>('keys', 'list', '--account', account.id);
    expect(listed.find((entry) => entry.id === key.id)?.last_used_at).toEqual(expect.any(String));

    const audit = await json<{ data: Array<{ action: string; actor: string }>; next_cursor: string | null }>(
      'audit',
      'list',
      '--account',
      account.id,
      '--limit',
      '3',
    );
    expect(audit.data.map((entry) => entry.action)).toEqual(['key.rotate', 'key.update', 'key.update']);
    expect(audit.data.every((entry) => entry.actor === 'operator')).toBe(true);
    const older = await json<{ data: Array<{ action: string }> }>(
      'audit',
      'list',
      '--account',
      account.id,
      '--cursor',
      String(audit.next_cursor),
    );
    expect(older.data.map((entry) => entry.action)).toEqual(['key.create', 'account.update', 'account.create']);
  });
});
