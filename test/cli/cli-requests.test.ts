import { describe, expect, it } from 'vitest';
import type { RequestDetail, RequestRecord } from '../../contract';
import { recordsOf } from '../request-log/request-log-helpers';
import { useCliGateway } from './cli-harness';

/* docs/cli.md, `requests list` and `requests show`: the request log from the command line, with the API's filters and checks. */
describe('model-gateway requests', { timeout: 120_000 }, () => {
  const harness = useCliGateway();

  it('lists with the filters and pages, and shows one record', async () => {
    const { gw } = harness;
    const accountId = await gw.createAccount('CLI');
    const key = await gw.createKey(accountId);
    expect((await gw.chat(key.key)).status).toBe(200);
    expect((await gw.chat(key.key, { model: 'mock-text' })).status).toBe(200);
    const other = await gw.createKey(await gw.createAccount('Other'));
    expect((await gw.chat(other.key)).status).toBe(200);
    await recordsOf(gw, { key_id: other.id });
    await recordsOf(gw, { key_id: key.id }, 2);

    const page = await harness.json<{ data: RequestRecord[]; next_cursor: string | null }>(
      'requests',
      'list',
      '--account',
      accountId,
      '--limit',
      '1',
    );
    expect(page.data).toHaveLength(1);
    expect(page.data[0]).toMatchObject({ account_id: accountId, model: 'mock-text' });
    const next = await harness.json<{ data: RequestRecord[]; next_cursor: string | null }>(
      'requests',
      'list',
      '--account',
      accountId,
      '--cursor',
      page.next_cursor ?? '',
    );
    expect(next.data.map((record) => record.model)).toEqual(['mock-chat']);
    expect(next.next_cursor).toBeNull();
    const byModel = await harness.json<{ data: RequestRecord[] }>('requests', 'list', '--model', 'mock-chat', '--key', key.id);
    expect(byModel.data.map((record) => record.key_id)).toEqual([key.id]);

    const shown = await harness.json<RequestDetail>('requests', 'show', page.data[0]?.id ?? '');
    expect(shown).toMatchObject({ id: page.data[0]?.id, request_body: null, response_body: null, bodies_kept: false });
  });

  it.each([
    [['requests', 'list', '--status', '700'], /--status/],
    [['requests', 'list', '--from', '2026-11-02T00:00:00Z', '--to', '2026-11-01T00:00:00Z'], /after/],
    [['requests', 'list', '--cursor', 'bm90LW91cnM'], /--cursor must be a next_cursor/],
    [['requests', 'list', '--name', 'x'], /requests list does not take --name/],
    [['requests', 'show', 'no-such-record'], /no request no-such-record/],
  ])('refuses %j with one line', async (args, message) => {
    const result = await harness.cli(...args);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });
});
