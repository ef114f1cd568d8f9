import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chromiumAvailable, screenshot } from './browser';
import { openDesktopPage, useOperatorDashboard } from './operator-dashboard';

/*
 * docs/operator-controls.md, spend budgets, in the dashboard in headless Chromium: the operator
 * sets an account's budget and a key's within it, each shown with its period, spend and what is
 * left; a key budget over the account's is refused with the API's message; the account's owner
 * reads the account's budget but has no way to change it; a key keeps its budget above a
 * lowered account budget while its other limits are edited.
 */
const STEP_TIMEOUT = 60_000;
const ACCOUNT = 'Hooli';

interface BudgetStatusBody {
  spent_usd: number;
}

describe.skipIf(!chromiumAvailable)('spend budgets in the dashboard', { timeout: STEP_TIMEOUT }, () => {
  const dashboard = useOperatorDashboard(ACCOUNT, STEP_TIMEOUT);
  let keyId = '';
  let secret = '';

  const accountRow = () => dashboard.page.locator('tbody tr', { has: dashboard.page.getByRole('link', { name: ACCOUNT, exact: true }) });
  const keyRow = (on: Page, name: string) => on.locator('tbody tr', { has: on.getByRole('rowheader', { name, exact: true }) });
  const chat = (key: string) => dashboard.gw.chat(key);
  /** A spend under a cent, as the dashboard writes it: three significant digits ($0.0000453). */
  const smallUsd = (usd: number) =>
    new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', maximumSignificantDigits: 3 }).format(usd);

  it('sets the account’s budget, shown with its period, spend and what is left', async () => {
    const { gw, page, accountId } = dashboard;
    expect(await accountRow().textContent()).not.toContain('Budget');
    await page.getByRole('button', { name: `Change the ceilings of ${ACCOUNT}` }).click();
    const dialog = page.getByRole('dialog', { name: `Ceilings of “${ACCOUNT}”` });
    await dialog.getByLabel('Budget (USD)').fill('25');
    await dialog.getByLabel('Budget period').selectOption({ label: 'per month' });
    await dialog.getByLabel('Budget alerts').fill('0.8');
    await dialog.getByRole('button', { name: 'Save ceilings' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => accountRow().textContent()).toContain('Budget $25.00 per month (alerts at 80%) · $0.00 spent, $25.00 left');

    const account = await gw.http.get(`/v1/admin/accounts/${accountId}`).set(gw.admin());
    expect(account.body.budget).toEqual({ amount_usd: 25, period: 'month', alert_at: [0.8] });
    await screenshot(page, 'desktop-accounts-budget');
  });

  it('sets a key’s budget within the account’s, refusing one over it with the API’s message', async () => {
    const { gw, page, accountId } = dashboard;
    await page.getByRole('link', { name: ACCOUNT, exact: true }).click();
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    await page.getByText('Account budget $25.00 per month (alerts at 80%) · $0.00 spent, $25.00 left.').waitFor();
    const form = page.getByRole('form', { name: 'New API key' });
    await form.getByLabel('Name', { exact: true }).fill('ci');
    await form.getByRole('button', { name: 'Create key' }).click();
    secret = await page.getByRole('textbox', { name: 'API key ci' }).inputValue();
    await page.getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => keyRow(page, 'ci').textContent()).toContain('No budget');

    await page.getByRole('button', { name: 'Change the limits of key ci' }).click();
    const dialog = page.getByRole('dialog', { name: 'Limits of “ci”' });
    const amount = dialog.getByLabel('Budget (USD)');
    await amount.fill('30');
    await dialog.getByLabel('Budget period').selectOption({ label: 'in total' });
    await dialog.getByRole('button', { name: 'Save limits' }).click();
    const refusal = dialog.getByRole('alert');
    await refusal.waitFor();
    expect(await refusal.textContent()).toContain("budget 30 USD exceeds the account's budget of 25 USD set by the operator.");
    expect(await amount.getAttribute('aria-invalid')).toBe('true');
    await screenshot(page, 'desktop-keys-budget-refused');

    await amount.fill('10');
    await dialog.getByRole('button', { name: 'Save limits' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => keyRow(page, 'ci').textContent()).toContain('Budget $10.00 in total · $0.00 spent, $10.00 left');

    const keys = await gw.http.get(`/v1/admin/accounts/${accountId}/keys`).set(gw.admin());
    const stored = (keys.body.data as Array<{ id: string; name: string; budget: unknown }>).find((key) => key.name === 'ci');
    expect(stored?.budget).toEqual({ amount_usd: 10, period: 'total', alert_at: [] });
    keyId = stored?.id ?? '';
  });

  it('shows the spend of both budgets once the usage is written', async () => {
    const { gw, page } = dashboard;
    expect((await chat(secret)).status).toBe(200);
    await gw.gateway.recorder?.flush();
    const status = await gw.http.get(`/v1/admin/keys/${keyId}/budget`).set(gw.admin());
    const spent = (status.body as BudgetStatusBody).spent_usd;
    expect(spent).toBeGreaterThan(0);
    expect(spent).toBeLessThan(0.01);

    await page.reload();
    await expect.poll(() => keyRow(page, 'ci').textContent()).toContain(`Budget $10.00 in total · ${smallUsd(spent)} spent, $10.00 left`);
    await page.getByText(`Account budget $25.00 per month (alerts at 80%) · ${smallUsd(spent)} spent, $25.00 left.`).waitFor();
    await screenshot(page, 'desktop-keys-budget');
  });

  it('shows the account’s owner the account’s budget with no way to change it', async () => {
    const { gw, browser, accountId } = dashboard;
    const link = await gw.http.post(`/v1/admin/accounts/${accountId}/login-link`).set(gw.admin());
    expect(link.status).toBe(201);
    const token = new URL((link.body as { url: string }).url).hash;
    const { page: owner, pageErrors: ownerErrors, close: closeOwner } = await openDesktopPage(browser);
    await owner.goto(`${gw.baseUrl}/dashboard/login${token}`);
    await owner.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    const note = owner.getByText(/^Account budget \$25\.00 per month/);
    await note.waitFor();
    expect(await note.textContent()).toContain('Set by the operator; each key’s budget stays within it.');
    await expect.poll(() => keyRow(owner, 'ci').textContent()).toContain('Budget $10.00 in total');
    expect(await owner.getByRole('navigation', { name: 'Main' }).textContent()).not.toContain('Accounts');
    expect(await owner.getByRole('button', { name: /ceilings/i }).count()).toBe(0);
    await screenshot(owner, 'desktop-owner-budget');

    // The accounts page, where the operator edits it, leads the owner back to its keys.
    await owner.goto(`${gw.baseUrl}/dashboard/accounts`);
    await owner.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    expect(new URL(owner.url()).pathname).toBe(`/dashboard/accounts/${accountId}/keys`);
    expect(await owner.getByRole('button', { name: /ceilings/i }).count()).toBe(0);

    // An owner's new key over the account's budget: the API's message, nothing created.
    const form = owner.getByRole('form', { name: 'New API key' });
    await form.getByLabel('Name', { exact: true }).fill('big');
    await form.getByLabel('Budget (USD)').fill('50');
    await form.getByRole('button', { name: 'Create key' }).click();
    const refusal = form.getByRole('alert');
    await refusal.waitFor();
    expect(await refusal.textContent()).toContain("budget 50 USD exceeds the account's budget of 25 USD set by the operator.");
    expect(await form.getByLabel('Budget (USD)').getAttribute('aria-invalid')).toBe('true');
    expect(await owner.getByRole('rowheader', { name: 'big', exact: true }).count()).toBe(0);
    await screenshot(owner, 'desktop-owner-budget-refused');
    expect(ownerErrors).toEqual([]);
    await closeOwner();
  });

  it('keeps a key’s budget above a lowered account budget while its other limits change', async () => {
    const { gw, page, pageErrors } = dashboard;
    await page.goto(`${gw.baseUrl}/dashboard/accounts`);
    await page.getByRole('button', { name: `Change the ceilings of ${ACCOUNT}` }).click();
    const ceilings = page.getByRole('dialog', { name: `Ceilings of “${ACCOUNT}”` });
    await ceilings.getByLabel('Budget (USD)').fill('5');
    await ceilings.getByRole('button', { name: 'Save ceilings' }).click();
    await ceilings.waitFor({ state: 'detached' });
    await expect.poll(() => accountRow().textContent()).toContain('Budget $5.00 per month (alerts at 80%)');

    await page.getByRole('link', { name: ACCOUNT, exact: true }).click();
    await page.getByRole('button', { name: 'Change the limits of key ci' }).click();
    const limits = page.getByRole('dialog', { name: 'Limits of “ci”' });
    await limits.getByLabel('Requests per minute (RPM)').fill('60');
    await limits.getByRole('button', { name: 'Save limits' }).click();
    await limits.waitFor({ state: 'detached' });
    await expect.poll(() => keyRow(page, 'ci').textContent()).toContain('60 RPM');
    expect(await keyRow(page, 'ci').textContent()).toContain('Budget $10.00 in total');
    const key = await gw.http.get(`/v1/admin/keys/${keyId}`).set(gw.admin());
    expect(key.body).toMatchObject({ rpm: 60, budget: { amount_usd: 10, period: 'total' } });
    expect(pageErrors).toEqual([]);
  });
});
