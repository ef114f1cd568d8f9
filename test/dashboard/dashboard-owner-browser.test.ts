import { beforeAll, describe, expect, it } from 'vitest';
import { TEST_ADMIN_TOKEN } from '../helpers/test-gateway';
import { chromiumAvailable, collectPageErrors, DESKTOP, PHONE, screenshot } from './browser';
import { useOperatorDashboard } from './operator-dashboard';

/*
 * The dashboard in headless Chromium against a real gateway, past the operator's own pages: an
 * account owner signs in with a one-time login link and cannot reach another account, and every
 * main page works at phone width. The accounts, keys and usage are those the operator's story in
 * dashboard-browser.test.ts leaves behind, made here through the admin API. Screenshots go to
 * test-artifacts/screenshots/.
 */
const STEP_TIMEOUT = 60_000;

describe.skipIf(!chromiumAvailable)('the dashboard in Chromium, for an account owner and at phone width', { timeout: STEP_TIMEOUT }, () => {
  const dashboard = useOperatorDashboard('Acme Robotics', STEP_TIMEOUT);
  const acme = { id: '' };

  const chat = (key: string) =>
    dashboard.gw.chat(key, { messages: [{ role: 'user', content: 'Hello from the dashboard test' }], max_tokens: undefined });

  beforeAll(async () => {
    const { gw } = dashboard;
    acme.id = dashboard.accountId;
    // A revoked key with a request in the usage chart, an active key, a usage query key, and a second account.
    const ciRunner = await gw.createKey(acme.id, { name: 'ci-runner', tpm: 50_000 });
    expect((await chat(ciRunner.key)).status).toBe(200);
    await gw.http.post(`/v1/admin/keys/${ciRunner.id}/revoke`).set(gw.admin()).expect(200);
    await gw.createKey(acme.id, { name: 'keyboard' });
    await gw.createUsageKey(acme.id);
    await gw.createAccount('Globex');
    await gw.gateway.recorder?.flush();
  }, STEP_TIMEOUT);

  it('lets an account owner in with a one-time login link, to their own account only', async () => {
    const { gw, page, browser } = dashboard;
    await page.goto(`${gw.baseUrl}/dashboard/accounts`);
    await page.getByRole('button', { name: 'Create a login link for Acme Robotics' }).click();
    const url = await page.getByRole('textbox', { name: 'Login link for Acme Robotics' }).inputValue();
    expect(url).toMatch(new RegExp(`^${gw.baseUrl}/dashboard/login#token=lt-[0-9A-Za-z]{48}$`));
    await screenshot(page, 'desktop-accounts-login-link');
    const globex = (await gw.http.get('/v1/admin/accounts').set(gw.admin())).body.data.find(
      (account: { name: string }) => account.name === 'Globex',
    ).id as string;
    const globexKey = await gw.createKey(globex, { name: 'globex secret key' });

    const ownerContext = await browser.newContext({ viewport: DESKTOP });
    const owner = await ownerContext.newPage();
    const ownerErrors = collectPageErrors(owner);
    await owner.goto(url);
    await owner.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    expect(new URL(owner.url()).pathname).toBe(`/dashboard/accounts/${acme.id}/keys`);
    expect(new URL(owner.url()).hash).toBe('');
    expect(await owner.getByRole('navigation', { name: 'Main' }).textContent()).not.toContain('Accounts');
    await owner.locator('tbody tr').first().waitFor();
    await screenshot(owner, 'desktop-owner-keys');

    // Another account's pages: the server's 404, and none of its data.
    await owner.goto(`${gw.baseUrl}/dashboard/accounts/${globex}/keys`);
    await owner
      .getByRole('alert')
      .filter({ hasText: `No account with id "${globex}".` })
      .waitFor();
    expect(await owner.content()).not.toContain('globex secret key');
    await screenshot(owner, 'desktop-owner-other-account');
    await owner.goto(`${gw.baseUrl}/dashboard/accounts/${globex}/usage`);
    await owner.getByRole('alert').filter({ hasText: 'No account with id' }).waitFor();
    await owner.goto(`${gw.baseUrl}/dashboard/accounts`);
    await owner.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    expect(new URL(owner.url()).pathname).toBe(`/dashboard/accounts/${acme.id}/keys`);

    // …and the API behind it, with the owner's own cookie and CSRF token.
    const session = await owner.request.get(`${gw.baseUrl}/v1/admin/session`);
    const csrf = ((await session.json()) as { csrf_token: string }).csrf_token;
    expect((await owner.request.get(`${gw.baseUrl}/v1/admin/accounts/${globex}/keys`)).status()).toBe(404);
    expect((await owner.request.get(`${gw.baseUrl}/v1/admin/keys/${globexKey.id}`)).status()).toBe(404);
    expect(
      (await owner.request.post(`${gw.baseUrl}/v1/admin/keys/${globexKey.id}/revoke`, { headers: { 'x-csrf-token': csrf } })).status(),
    ).toBe(404);
    expect(
      (await owner.request.post(`${gw.baseUrl}/v1/admin/accounts`, { headers: { 'x-csrf-token': csrf }, data: { name: 'x' } })).status(),
    ).toBe(403);
    expect((await owner.request.get(`${gw.baseUrl}/v1/admin/accounts/${acme.id}/keys`)).status()).toBe(200);
    expect((await chat(globexKey.key)).status).toBe(200);

    // The link worked once.
    const again = await browser.newContext();
    const second = await again.newPage();
    await second.goto(url);
    await second.getByRole('alert').filter({ hasText: 'invalid, expired or already used' }).waitFor();
    await again.close();

    await owner.getByRole('button', { name: 'Sign out' }).click();
    await owner.getByText('You are signed out.').waitFor();
    expect((await owner.request.get(`${gw.baseUrl}/v1/admin/accounts/${acme.id}/keys`)).status()).toBe(401);
    expect(ownerErrors).toEqual([]);
    await ownerContext.close();
  });

  it('works at phone width', async () => {
    const { gw, browser } = dashboard;
    const phone = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
    const small = await phone.newPage();
    const errors = collectPageErrors(small);
    await small.goto(`${gw.baseUrl}/dashboard/login`);
    await small.getByLabel('Admin token').waitFor();
    await screenshot(small, 'phone-login');
    await small.getByLabel('Admin token').fill(TEST_ADMIN_TOKEN);
    await small.getByRole('button', { name: 'Sign in' }).click();
    await small.getByRole('heading', { name: 'Accounts', level: 1 }).waitFor();
    const pages: [string, string][] = [
      ['phone-accounts', 'accounts'],
      ['phone-keys', `accounts/${acme.id}/keys`],
      ['phone-usage', `accounts/${acme.id}/usage`],
      ['phone-settings', `accounts/${acme.id}/settings`],
      ['phone-models', 'models'],
    ];
    for (const [name, path] of pages) {
      await small.goto(`${gw.baseUrl}/dashboard/${path}`);
      await small.locator('main h1').waitFor();
      await small.locator('main[aria-busy]').waitFor({ state: 'detached' });
      // Nothing wider than the screen: no sideways scrolling of the page.
      expect(await small.evaluate('document.documentElement.scrollWidth'), name).toBeLessThanOrEqual(PHONE.width);
      await screenshot(small, name);
    }
    await small.goto(`${gw.baseUrl}/dashboard/accounts/${acme.id}/keys`);
    await small.getByRole('button', { name: 'Revoke key keyboard' }).click();
    await small.getByRole('alertdialog').waitFor();
    await screenshot(small, 'phone-keys-revoke-dialog');
    await small.keyboard.press('Escape');
    await small.goto(`${gw.baseUrl}/dashboard/login`);
    await small.locator('main h1').waitFor();
    expect(errors).toEqual([]);
    await phone.close();
  });
});
