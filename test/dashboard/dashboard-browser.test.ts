import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, TEST_ADMIN_TOKEN, type TestGateway } from '../helpers/test-gateway';
import {
  chromiumAvailable,
  CHROMIUM_PATH,
  collectPageErrors,
  DESKTOP,
  ensureDashboardBuilt,
  launchChromium,
  screenshot,
  UNLABELLED_CONTROLS,
} from './browser';

/*
 * The dashboard end to end, in headless Chromium against a real gateway: the operator signs
 * in, creates an account and a key, uses the key, sees the request in the usage chart, blocks
 * then revokes it (the API answers 403 then 401), rotates the usage key. Screenshots of every
 * main page, at desktop width, go to test-artifacts/screenshots/. The account owner's login
 * link and the phone width are in dashboard-owner-browser.test.ts.
 */
if (!chromiumAvailable) {
  console.warn(
    `Skipping the dashboard browser tests: no Chromium at ${CHROMIUM_PATH}. Install it with \`apt-get install -y chromium\` (Debian), or set CHROMIUM_PATH.`,
  );
}

const STEP_TIMEOUT = 60_000;

describe.skipIf(!chromiumAvailable)('the dashboard in Chromium', { timeout: STEP_TIMEOUT }, () => {
  let gw: TestGateway;
  let browser: Browser;
  let operator: BrowserContext;
  let page: Page;
  let pageErrors: string[];
  const acme = { id: '', keyText: '', keyId: '' };

  const chat = (key: string) =>
    fetch(`${gw.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mock-chat', messages: [{ role: 'user', content: 'Hello from the dashboard test' }] }),
    });

  const usageWith = (key: string) => fetch(`${gw.baseUrl}/v1/usage/keys`, { headers: { authorization: `Bearer ${key}` } });

  const keyRow = (name: string) => page.locator('tbody tr', { has: page.getByRole('rowheader', { name, exact: true }) });

  beforeAll(async () => {
    await ensureDashboardBuilt();
    gw = await startTestGateway();
    browser = await launchChromium();
    operator = await browser.newContext({ viewport: DESKTOP, acceptDownloads: true });
    await operator.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: gw.baseUrl });
    operator.setDefaultTimeout(10_000);
    page = await operator.newPage();
    pageErrors = collectPageErrors(page);
  }, STEP_TIMEOUT);

  afterAll(async () => {
    await browser?.close();
    await gw?.close();
  });

  it('sends a signed-out visitor to the sign-in page, and signs the operator in with the admin token', async () => {
    await page.goto(`${gw.baseUrl}/dashboard/`);
    await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/dashboard/login');
    await screenshot(page, 'desktop-login');

    await page.getByLabel('Admin token').fill('wrong token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Invalid admin token.' }).waitFor();

    await page.getByLabel('Admin token').fill(TEST_ADMIN_TOKEN);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Accounts', level: 1 }).waitFor();
    await page.getByText('No accounts yet').waitFor();
    const cookie = (await operator.cookies()).find((entry) => entry.name === 'mg_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/v1/admin' });
  });

  it('creates an account', async () => {
    await page.getByLabel('Account name').fill('Acme Robotics');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('link', { name: 'Acme Robotics', exact: true }).waitFor();
    const accounts = await gw.http.get('/v1/admin/accounts').set(gw.admin());
    acme.id = accounts.body.data.find((account: { name: string }) => account.name === 'Acme Robotics').id;
    await page.getByLabel('Account name').fill('Globex');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('link', { name: 'Globex', exact: true }).waitFor();
    await screenshot(page, 'desktop-accounts');
  });

  it('creates a key, shows it once with a copy button, then only its hint', async () => {
    await page.getByRole('link', { name: 'Acme Robotics', exact: true }).click();
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    await page.getByText('No API keys yet').waitFor();
    await screenshot(page, 'desktop-keys-empty');

    await page.getByLabel('Name', { exact: true }).fill('laptop');
    await page.getByLabel('RPM').fill('120');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = page.getByRole('textbox', { name: 'API key laptop' });
    await secret.waitFor();
    acme.keyText = await secret.inputValue();
    expect(acme.keyText).toMatch(/^sk-[0-9A-Za-z]{48}$/);
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(acme.keyText);
    await expect.poll(() => keyRow('laptop').textContent()).toContain(`sk-...${acme.keyText.slice(-4)}`);
    expect(await keyRow('laptop').textContent()).toContain('120 RPM');
    await screenshot(page, 'desktop-keys-new-key');

    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.content()).not.toContain(acme.keyText);
    await page.reload();
    await keyRow('laptop').waitFor();
    expect(await page.content()).not.toContain(acme.keyText);
    const keys = await gw.http.get(`/v1/admin/accounts/${acme.id}/keys`).set(gw.admin());
    acme.keyId = keys.body.data[0].id;
  });

  it('renames a key and changes its limits in dialogs', async () => {
    await page.getByRole('button', { name: 'Rename key laptop' }).click();
    const rename = page.getByRole('dialog', { name: 'Rename “laptop”' });
    await rename.getByLabel('Name').fill('ci-runner');
    await rename.getByRole('button', { name: 'Save name' }).click();
    await keyRow('ci-runner').waitFor();
    // The list was redrawn: focus is on the renamed key's row, not lost.
    await expect.poll(() => page.evaluate('document.activeElement.textContent')).toBe('ci-runner');

    await page.getByRole('button', { name: 'Change the limits of key ci-runner' }).click();
    const limits = page.getByRole('dialog', { name: 'Limits of “ci-runner”' });
    await limits.getByLabel('Requests per minute (RPM)').fill('0');
    await limits.getByRole('button', { name: 'Save limits' }).click();
    await limits.getByRole('alert').filter({ hasText: 'at least 1' }).waitFor();
    await limits.getByLabel('Requests per minute (RPM)').fill('');
    await limits.getByLabel('Tokens per minute (TPM)').fill('50000');
    await limits.getByRole('button', { name: 'Save limits' }).click();
    await expect.poll(() => keyRow('ci-runner').textContent()).toContain('default RPM · 50,000 TPM');
  });

  it('uses the key for a chat request and shows it in the usage chart, totals and CSV', async () => {
    const response = await chat(acme.keyText);
    expect(response.status).toBe(200);

    await page.getByRole('link', { name: 'Usage' }).click();
    await page.getByRole('heading', { name: 'Usage', level: 1 }).waitFor();
    // Usage is written in batches (at most a second late): refresh until the chart has it.
    await expect
      .poll(
        async () => {
          await page.getByRole('button', { name: 'Refresh' }).click();
          await page.locator('.usage-results, .empty').first().waitFor();
          return page
            .locator('figure[data-metric="requests"]')
            .getAttribute('data-total', { timeout: 500 })
            .catch(() => null);
        },
        { timeout: 15_000, interval: 300 },
      )
      .toBe('1');
    const bar = page.locator('figure[data-metric="requests"] rect.bar');
    expect(await bar.count()).toBe(1);
    expect(await bar.locator('title').textContent()).toMatch(/ci-runner \(sk-\.\.\..{4}\): 1 request$/);
    expect(await page.locator('figure[data-metric="requests"] svg').getAttribute('aria-label')).toMatch(/1 request in total over 30 days/);
    expect(Number(await page.locator('figure[data-metric="tokens"]').getAttribute('data-total'))).toBeGreaterThan(0);
    const totals = page.locator('table.totals tbody tr').first();
    expect(await totals.textContent()).toContain('ci-runner');
    expect(await totals.locator('td[data-label="Requests"]').textContent()).toBe('1');
    await screenshot(page, 'desktop-usage');

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    expect(download.suggestedFilename()).toMatch(new RegExp(`^usage-${acme.id}-\\d{4}-\\d\\d-\\d\\d-\\d{4}-\\d\\d-\\d\\d\\.csv$`));
    const csv = readFileSync((await download.path()) ?? '', 'utf8').split('\r\n');
    expect(csv[0]).toBe(
      'date,key_name,key_hint,key_status,requests,prompt_tokens,completion_tokens,cached_tokens,cache_write_tokens,cache_write_1h_tokens,reasoning_tokens,spend_usd',
    );
    expect(csv[1]).toMatch(/^\d{4}-\d\d-\d\d,ci-runner,sk-\.\.\..{4},ACTIVE,1,\d+,\d+,0,0,0,0,0\.\d{9}$/);
  });

  it('shows range errors from the error envelope, on the offending field', async () => {
    await page.getByLabel('From', { exact: true }).fill('2026-01-01');
    await page.getByLabel('To', { exact: true }).fill('2026-06-30');
    await page.getByRole('button', { name: 'Show', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'The range may cover at most 92 days.' }).waitFor();
    expect(await page.getByRole('alert').textContent()).toContain('range_too_large');
    expect(await page.getByLabel('From', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    await page.getByRole('button', { name: 'Last 30 days' }).click();
    await page.locator('figure[data-metric="requests"]').waitFor();
  });

  it('blocks the key (the API answers 403), then revokes it after a confirmation (401)', async () => {
    await page.getByRole('link', { name: 'API keys' }).click();
    await keyRow('ci-runner').waitFor();
    await page.getByRole('button', { name: 'Block key ci-runner' }).click();
    await expect.poll(() => keyRow('ci-runner').getByText('Blocked', { exact: true }).count()).toBe(1);
    const blocked = await chat(acme.keyText);
    expect(blocked.status).toBe(403);
    expect(((await blocked.json()) as { error: { code: string } }).error.code).toBe('key_blocked');

    await page.getByRole('button', { name: 'Unblock key ci-runner' }).click();
    await expect.poll(async () => (await chat(acme.keyText)).status).toBe(200);

    // Escape cancels the confirmation; nothing changes.
    await page.getByRole('button', { name: 'Revoke key ci-runner' }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Revoke “ci-runner”?' });
    await confirm.waitFor();
    await screenshot(page, 'desktop-keys-revoke-dialog');
    await page.keyboard.press('Escape');
    await confirm.waitFor({ state: 'detached' });
    expect((await chat(acme.keyText)).status).toBe(200);

    await page.getByRole('button', { name: 'Revoke key ci-runner' }).click();
    await confirm.getByRole('button', { name: 'Revoke key' }).click();
    await expect.poll(() => keyRow('ci-runner').getByText('Revoked', { exact: true }).count()).toBe(1);
    const revoked = await chat(acme.keyText);
    expect(revoked.status).toBe(401);
    expect(await keyRow('ci-runner').getByRole('button').count()).toBe(0);
    await screenshot(page, 'desktop-keys');
  });

  it('generates the usage query key, then rotates it: the old one stops working', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByText('No usage query key yet').waitFor();
    await page.getByRole('button', { name: 'Generate usage key' }).click();
    const first = await page.getByRole('textbox', { name: 'Usage query key' }).inputValue();
    expect(first).toMatch(/^uk-[0-9A-Za-z]{48}$/);
    expect((await usageWith(first)).status).toBe(200);
    await page.getByRole('button', { name: 'Done' }).click();

    await page.getByRole('button', { name: 'Rotate usage key' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Rotate key' }).click();
    const secret = page.getByRole('textbox', { name: 'Usage query key' });
    await expect.poll(() => secret.inputValue()).not.toBe(first);
    const second = await secret.inputValue();
    expect(second).toMatch(/^uk-/);
    expect(await page.locator('.facts').textContent()).toContain(`uk-...${second.slice(-4)}`);
    await screenshot(page, 'desktop-settings');
    expect((await usageWith(first)).status).toBe(401);
    expect((await usageWith(second)).status).toBe(200);
  });

  it('lists the model catalogue with capabilities, context windows and prices', async () => {
    await page.getByRole('link', { name: 'Models' }).click();
    // The operator's page also lists the deployments (deployments-browser.test.ts): the catalogue's table here.
    const catalogue = page.getByRole('table', { name: 'Model catalogue' });
    const row = catalogue.locator('tbody tr', { has: page.getByRole('rowheader', { name: 'mock-chat' }) });
    await row.waitFor();
    expect(await row.textContent()).toMatch(/mock-chat.*mock.*Chat.*Code.*Tools.*JSON mode.*Vision.*32,000 tokens.*\$1\.50.*\$2\.25/);
    await page.getByLabel('Filter models').fill('embeddings');
    await expect.poll(() => catalogue.locator('tbody tr').count()).toBe(1);
    expect(await catalogue.locator('tbody tr').textContent()).toContain('Dimensions: 256, 1536');
    await page.getByLabel('Filter models').fill('');
    await screenshot(page, 'desktop-models');
  });

  it('follows the system’s dark theme', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto(`${gw.baseUrl}/dashboard/accounts/${acme.id}/usage`);
    await page.locator('figure[data-metric="requests"]').waitFor();
    await screenshot(page, 'desktop-usage-dark');
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('is keyboard accessible, with every control labelled and no page errors', async () => {
    await page.goto(`${gw.baseUrl}/dashboard/accounts/${acme.id}/keys`);
    await keyRow('ci-runner').waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Skip to content');
    await page.keyboard.press('Enter');
    // Create a key with the keyboard only.
    await page.getByLabel('Name', { exact: true }).focus();
    await page.keyboard.type('keyboard');
    await page.keyboard.press('Enter');
    await page.getByRole('textbox', { name: 'API key keyboard' }).waitFor();
    for (const path of ['accounts', `accounts/${acme.id}/keys`, `accounts/${acme.id}/usage`, `accounts/${acme.id}/settings`, 'models']) {
      await page.goto(`${gw.baseUrl}/dashboard/${path}`);
      await page.locator('main h1').waitFor();
      await page.locator('main[aria-busy]').waitFor({ state: 'detached' });
      expect(await page.evaluate(UNLABELLED_CONTROLS), path).toEqual([]);
    }
    expect(pageErrors).toEqual([]);
  });
});
