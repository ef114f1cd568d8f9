import { beforeAll, describe, expect, it } from 'vitest';
import type { RequestRecord } from '../../contract';
import { recordsOf } from '../request-log/request-log-helpers';
import { chromiumAvailable, screenshot } from './browser';
import { openDesktopPage, useOperatorDashboard } from './operator-dashboard';

/*
 * docs/request-log.md: the dashboard's Requests page in headless Chromium: the operator sees
 * every account's requests, filters them and opens one; an account owner sees only its own.
 */
const STEP_TIMEOUT = 60_000;

describe.skipIf(!chromiumAvailable)('the Requests page in Chromium', { timeout: STEP_TIMEOUT }, () => {
  const dashboard = useOperatorDashboard('Initech', STEP_TIMEOUT);
  const hooli = { accountId: '', record: undefined as RequestRecord | undefined };
  let failed: RequestRecord | undefined;

  beforeAll(async () => {
    const { gw, accountId } = dashboard;
    const key = await gw.createKey(accountId, { name: 'initech key' });
    expect((await gw.chat(key.key)).status).toBe(200);
    expect((await gw.chat(key.key, { messages: [{ role: 'user', content: 'mock:error:500' }] })).status).toBe(502);
    hooli.accountId = await gw.createAccount('Hooli');
    const hooliKey = await gw.createKey(hooli.accountId, { name: 'hooli key' });
    expect((await gw.chat(hooliKey.key, { model: 'mock-text' })).status).toBe(200);
    [hooli.record] = await recordsOf(gw, { account_id: hooli.accountId });
    [failed] = await recordsOf(gw, { status: '502' });
  }, STEP_TIMEOUT);

  it('shows the operator every request, filters them, and opens one with its timings, tokens and cost', async () => {
    const { gw, page, pageErrors } = dashboard;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Requests' }).click();
    await page.getByRole('heading', { name: 'Requests', level: 1 }).waitFor();
    await page.locator('tbody tr').nth(2).waitFor();
    expect(await page.locator('tbody tr').count()).toBe(3);
    expect(await page.locator('tbody').textContent()).toContain('mock-text');
    await screenshot(page, 'desktop-requests');

    await page.getByLabel('Status').fill('502');
    await page.getByRole('button', { name: 'Show requests' }).click();
    await page.waitForURL(/status=502/);
    await page.locator('tbody tr').first().filter({ hasText: '502 upstream_unavailable' }).waitFor();
    expect(await page.locator('tbody tr').count()).toBe(1);

    await page.locator('tbody tr a').first().click();
    await page.getByRole('heading', { name: 'Request', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/dashboard/requests/${failed?.id ?? ''}`);
    const facts = (await page.locator('dl.facts').textContent()) ?? '';
    expect(facts).toContain('502 upstream_unavailable');
    expect(facts).toContain('Upstream calls2');
    expect(facts).toContain(`Cost (USD)${failed?.cost_usd ?? ''}`);
    expect(await page.getByRole('region', { name: 'Bodies' }).textContent()).toContain('Not kept');
    await screenshot(page, 'desktop-request-detail');

    // A bad filter: the API's 400, shown on the page.
    await page.goto(`${gw.baseUrl}/dashboard/requests?from=2026-11-02T00:00:00Z&to=2026-11-01T00:00:00Z`);
    await page.getByRole('alert').filter({ hasText: 'must be after' }).waitFor();
    expect(pageErrors).toEqual([]);
  });

  it('shows an account owner its own account’s requests only', async () => {
    const { gw, browser, accountId } = dashboard;
    const link = await gw.http.post(`/v1/admin/accounts/${accountId}/login-link`).set(gw.admin()).expect(201);
    const { page: owner, close } = await openDesktopPage(browser);
    await owner.goto(String(link.body.url));
    await owner.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    await owner.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Requests' }).click();
    await owner.locator('tbody tr').nth(1).waitFor();
    expect(await owner.locator('tbody tr').count()).toBe(2);
    expect(await owner.locator('main').textContent()).not.toContain('mock-text');
    expect(await owner.getByLabel('Account id').count()).toBe(0);
    expect(await owner.locator('[data-note="bodies"]').textContent()).toContain('not kept');
    await screenshot(owner, 'desktop-owner-requests');
    await owner.goto(`${gw.baseUrl}/dashboard/requests/${hooli.record?.id ?? ''}`);
    await owner.getByRole('alert').filter({ hasText: 'No request' }).waitFor();
    expect(await owner.content()).not.toContain('mock-text');
    await close();
  });
});
