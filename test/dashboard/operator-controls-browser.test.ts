import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, TEST_ADMIN_TOKEN, type TestGateway } from '../helpers/test-gateway';
import { chromiumAvailable, collectPageErrors, DESKTOP, ensureDashboardBuilt, launchChromium, screenshot } from './browser';

/*
 * docs/operator-controls.md in the dashboard, in headless Chromium: the operator sets an
 * account's ceilings, creates a key with an allow-list, rotates its secret (shown once; the
 * old one refused at once) and reads the change in the audit log.
 */
const STEP_TIMEOUT = 60_000;

describe.skipIf(!chromiumAvailable)('operator controls in the dashboard', () => {
  let gw: TestGateway;
  let browser: Browser;
  let page: Page;
  let pageErrors: string[];
  let accountId = '';

  const chat = (key: string, model = 'mock-chat') =>
    gw.http
      .post('/v1/chat/completions')
      .set('authorization', `Bearer ${key}`)
      .send({ model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 });
  const keyRow = (name: string) => page.locator('tbody tr', { has: page.getByRole('rowheader', { name, exact: true }) });

  beforeAll(async () => {
    await ensureDashboardBuilt();
    gw = await startTestGateway();
    accountId = await gw.createAccount('Initech');
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: DESKTOP });
    context.setDefaultTimeout(10_000);
    page = await context.newPage();
    pageErrors = collectPageErrors(page);
    await page.goto(`${gw.baseUrl}/dashboard/`);
    await page.getByLabel('Admin token').fill(TEST_ADMIN_TOKEN);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Accounts', level: 1 }).waitFor();
  }, STEP_TIMEOUT);

  afterAll(async () => {
    await browser?.close();
    await gw?.close();
  });

  it(
    'sets an account’s ceilings in a dialog',
    async () => {
      await page.getByRole('button', { name: 'Change the ceilings of Initech' }).click();
      const dialog = page.getByRole('dialog', { name: 'Ceilings of “Initech”' });
      await dialog.getByLabel('Requests per minute (RPM)').fill('300');
      await dialog.getByLabel('Models').fill('mock-chat, mock-e*');
      await dialog.getByRole('button', { name: 'Save ceilings' }).click();
      await dialog.waitFor({ state: 'detached' });
      await page.getByRole('cell', { name: '≤ 300 RPM · any TPM · mock-chat, mock-e*' }).waitFor();
      const account = await gw.http.get(`/v1/admin/accounts/${accountId}`).set(gw.admin());
      expect(account.body).toMatchObject({ rpm: 300, tpm: null, models: ['mock-chat', 'mock-e*'] });
      await screenshot(page, 'desktop-accounts-ceilings');
    },
    STEP_TIMEOUT,
  );

  it(
    'creates a key with an allow-list, rotates it, and shows the audit log',
    async () => {
      await page.getByRole('link', { name: 'Initech', exact: true }).click();
      await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
      await page.getByLabel('Name', { exact: true }).fill('bot');
      await page.getByLabel('Models').fill('mock-chat');
      await page.getByRole('button', { name: 'Create key' }).click();
      const first = await page.getByRole('textbox', { name: 'API key bot' }).inputValue();
      await page.getByRole('button', { name: 'Done' }).click();
      expect((await chat(first)).status).toBe(200);
      expect((await chat(first, 'mock-text')).status).toBe(403);
      await expect.poll(() => keyRow('bot').textContent()).toContain('mock-chat');

      await page.getByRole('button', { name: 'Rotate the secret of key bot' }).click();
      const dialog = page.getByRole('dialog', { name: 'New secret for “bot”' });
      await dialog.getByLabel('Grace period (seconds)').fill('0');
      await dialog.getByRole('button', { name: 'Rotate secret' }).click();
      const second = await page.getByRole('textbox', { name: 'API key bot' }).inputValue();
      expect(second).toMatch(/^sk-[0-9A-Za-z]{48}$/);
      expect(second).not.toBe(first);
      expect((await chat(first)).status).toBe(401);
      expect((await chat(second)).status).toBe(200);
      await expect.poll(() => keyRow('bot').textContent()).toContain(`sk-...${second.slice(-4)}`);
      await page.getByRole('button', { name: 'Done' }).click();

      const audit = page.getByRole('region', { name: 'Audit log' });
      await page.reload();
      await audit.getByText('key.rotate').waitFor();
      expect(await audit.textContent()).toContain('key.create');
      expect(await audit.textContent()).not.toContain(second);
      // Five entries fit one page: no button for older ones.
      expect(await audit.getByRole('button', { name: 'Older entries' }).isVisible()).toBe(false);
      await screenshot(page, 'desktop-keys-audit');
      expect(pageErrors).toEqual([]);
    },
    STEP_TIMEOUT,
  );
});
