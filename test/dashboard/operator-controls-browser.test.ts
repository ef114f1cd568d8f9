import { describe, expect, it } from 'vitest';
import { chromiumAvailable, screenshot } from './browser';
import { useOperatorDashboard } from './operator-dashboard';

/*
 * docs/operator-controls.md in the dashboard, in headless Chromium: the operator sets an
 * account's ceilings, creates a key with an allow-list, rotates its secret (shown once; the
 * old one refused at once) and reads the change in the audit log.
 */
const STEP_TIMEOUT = 60_000;

describe.skipIf(!chromiumAvailable)('operator controls in the dashboard', { timeout: STEP_TIMEOUT }, () => {
  const dashboard = useOperatorDashboard('Initech', STEP_TIMEOUT);

  const chat = (key: string, model = 'mock-chat') => dashboard.gw.chat(key, { model });
  const keyRow = (name: string) =>
    dashboard.page.locator('tbody tr', { has: dashboard.page.getByRole('rowheader', { name, exact: true }) });

  it('sets an account’s ceilings in a dialog', async () => {
    const { gw, page, accountId } = dashboard;
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
  });

  it('creates a key with an allow-list, rotates it, and shows the audit log', async () => {
    const { page, pageErrors } = dashboard;
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
  });
});
