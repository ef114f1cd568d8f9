import type { Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, screenshot } from './browser';
import { openDesktopPage, useOperatorDashboard } from './operator-dashboard';

/*
 * docs/operator-controls.md, "Who set a key's settings", in the dashboard (headless Chromium):
 * the keys page says which settings the operator set; the account's owner may tighten each in
 * the Limits dialog, a loosening is refused there with the server's message on the field; the
 * owner's own settings stay the owner's; the operator loosens anything.
 */
const STEP_TIMEOUT = 90_000;

const OPERATOR_SETTINGS = {
  rpm: 100,
  tpm: 1000,
  models: ['mock-chat', 'mock-e*'],
  // Seconds the dialog's minute input cannot show: a save that resent it would change it.
  expires_at: '2099-01-10T12:00:30.000Z',
  budget: { amount_usd: 0.5, period: 'day', alert_at: [] },
};

/** Per setting, how the owner loosens it in the dialog (each refused), then the tightening of all of them. */
const LOOSENINGS: Array<[string, string, (dialog: Locator) => Promise<void>]> = [
  ['rpm', 'a higher RPM', (dialog) => dialog.getByLabel('Requests per minute (RPM)').fill('300')],
  ['rpm', 'no RPM', (dialog) => dialog.getByLabel('Requests per minute (RPM)').fill('')],
  ['tpm', 'a higher TPM', (dialog) => dialog.getByLabel('Tokens per minute (TPM)').fill('5000')],
  ['models', 'a wider pattern', (dialog) => dialog.getByLabel('Models').fill('mock-*')],
  ['models', 'every model', (dialog) => dialog.getByLabel('Models').fill('')],
  ['expires_at', 'a later expiry', (dialog) => dialog.getByLabel('Expires').fill('2099-01-11T12:00')],
  ['expires_at', 'no expiry', (dialog) => dialog.getByLabel('Expires').fill('')],
  ['budget', 'a higher budget', (dialog) => dialog.getByLabel('Budget (USD)').fill('50')],
  [
    'budget',
    'another period',
    async (dialog) => {
      await dialog.getByLabel('Budget period').selectOption('week');
    },
  ],
  ['budget', 'no budget', (dialog) => dialog.getByLabel('Budget (USD)').fill('')],
];

async function tightenAll(dialog: Locator): Promise<void> {
  await dialog.getByLabel('Requests per minute (RPM)').fill('50');
  await dialog.getByLabel('Tokens per minute (TPM)').fill('900');
  await dialog.getByLabel('Models').fill('mock-chat');
  await dialog.getByLabel('Expires').fill('2099-01-05T12:00');
  await dialog.getByLabel('Budget (USD)').fill('0.25');
}

function limitsDialog(page: Page, keyName: string): Locator {
  return page.getByRole('dialog', { name: `Limits of “${keyName}”` });
}

async function openLimits(page: Page, keyName: string): Promise<Locator> {
  await page.getByRole('button', { name: `Change the limits of key ${keyName}` }).click();
  const dialog = limitsDialog(page, keyName);
  await dialog.waitFor();
  return dialog;
}

describe.skipIf(!chromiumAvailable)('who set a key’s settings, in the dashboard', { timeout: STEP_TIMEOUT }, () => {
  const dashboard = useOperatorDashboard('Hooli', STEP_TIMEOUT);
  const owner = { page: undefined as unknown as Page, errors: [] as string[] };
  let boundKeyId = '';

  const keyRow = (page: Page, name: string) => page.locator('tbody tr', { has: page.getByRole('rowheader', { name, exact: true }) });
  const apiKey = async (keyId: string) => (await dashboard.gw.http.get(`/v1/admin/keys/${keyId}`).set(dashboard.gw.admin())).body;

  beforeAll(async () => {
    const { gw, accountId, browser } = dashboard;
    const created = await gw.http
      .post(`/v1/admin/accounts/${accountId}/keys`)
      .set(gw.admin())
      .send({ name: 'bound', ...OPERATOR_SETTINGS })
      .expect(201);
    boundKeyId = created.body.id;
    const link = await gw.http.post(`/v1/admin/accounts/${accountId}/login-link`).set(gw.admin()).expect(201);
    const opened = await openDesktopPage(browser);
    owner.page = opened.page;
    owner.errors = opened.pageErrors;
    await owner.page.goto(String(link.body.url));
    await owner.page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
  }, STEP_TIMEOUT);

  it('the owner sees what the operator set, may tighten each setting, and is refused each loosening', async () => {
    const { page } = owner;
    await expect.poll(() => keyRow(page, 'bound').textContent()).toContain('Set by the operator: RPM, TPM, models, expiry, budget');

    const hints = await openLimits(page, 'bound');
    expect(await hints.textContent()).toContain('Set by the operator: you may lower it, not loosen or clear it.');
    await hints.getByRole('button', { name: 'Cancel' }).click();
    await hints.waitFor({ state: 'detached' });

    for (const [param, what, loosen] of LOOSENINGS) {
      const dialog = await openLimits(page, 'bound');
      await loosen(dialog);
      await dialog.getByRole('button', { name: 'Save limits' }).click();
      const refusal = dialog.getByRole('alert');
      await refusal.waitFor();
      expect(await refusal.textContent(), what).toContain('was set by the operator');
      expect(await refusal.textContent(), what).toContain('operator_only');
      expect(await dialog.locator(`[name="${param}"]`).getAttribute('aria-invalid'), what).toBe('true');
      if (param === 'rpm' && what === 'a higher RPM') await screenshot(page, 'desktop-owner-key-limits-refused');
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'detached' });
    }
    expect(await apiKey(boundKeyId)).toMatchObject(OPERATOR_SETTINGS);

    // A save sends only what changed: lowering the RPM leaves the operator's expiry to the second.
    const lower = await openLimits(page, 'bound');
    await lower.getByLabel('Requests per minute (RPM)').fill('90');
    await lower.getByRole('button', { name: 'Save limits' }).click();
    await lower.waitFor({ state: 'detached' });
    expect(await apiKey(boundKeyId)).toMatchObject({ ...OPERATOR_SETTINGS, rpm: 90 });

    const dialog = await openLimits(page, 'bound');
    await tightenAll(dialog);
    await dialog.getByRole('button', { name: 'Save limits' }).click();
    await dialog.waitFor({ state: 'detached' });
    const key = await apiKey(boundKeyId);
    expect(key).toMatchObject({ rpm: 50, tpm: 900, models: ['mock-chat'], budget: { amount_usd: 0.25, period: 'day' } });
    expect(Date.parse(key.expires_at)).toBeLessThan(Date.parse(OPERATOR_SETTINGS.expires_at));
    // Tightened by the owner, they stay the operator's.
    expect(key.set_by).toEqual({ rpm: 'operator', tpm: 'operator', models: 'operator', expires_at: 'operator', budget: 'operator' });
    await expect.poll(() => keyRow(page, 'bound').textContent()).toContain('50 RPM · 900 TPM');
    expect(owner.errors).toEqual([]);
  });

  it('what the owner set stays the owner’s to loosen', async () => {
    const { page } = owner;
    await page.getByLabel('Name', { exact: true }).fill('own');
    await page.getByLabel('RPM', { exact: true }).fill('10');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await keyRow(page, 'own').textContent()).not.toContain('Set by the operator');

    const dialog = await openLimits(page, 'own');
    expect(await dialog.textContent()).not.toContain('Set by the operator');
    await dialog.getByLabel('Requests per minute (RPM)').fill('1000');
    await dialog.getByRole('button', { name: 'Save limits' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => keyRow(page, 'own').textContent()).toContain('1,000 RPM');
    const keys = (await dashboard.gw.http.get(`/v1/admin/accounts/${dashboard.accountId}/keys`).set(dashboard.gw.admin())).body.data;
    const own = keys.find((key: { name: string }) => key.name === 'own');
    expect(own).toMatchObject({ rpm: 1000, set_by: { rpm: 'owner', tpm: null, models: null, expires_at: null, budget: null } });
    expect(owner.errors).toEqual([]);
  });

  it('the operator sees whose each setting is and loosens the operator’s and the owner’s alike', async () => {
    const { page, pageErrors } = dashboard;
    await page.getByRole('link', { name: 'Hooli', exact: true }).click();
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    expect(await keyRow(page, 'bound').textContent()).toContain('Set by the operator: RPM, TPM, models, expiry, budget');

    const bound = await openLimits(page, 'bound');
    // The operator's dialog carries no owner's restriction.
    expect(await bound.textContent()).not.toContain('not loosen or clear it');
    await bound.getByLabel('Requests per minute (RPM)').fill('500');
    await bound.getByLabel('Expires').fill('');
    await bound.getByRole('button', { name: 'Save limits' }).click();
    await bound.waitFor({ state: 'detached' });
    expect(await apiKey(boundKeyId)).toMatchObject({ rpm: 500, expires_at: null, set_by: { rpm: 'operator', expires_at: null } });
    await expect.poll(() => keyRow(page, 'bound').textContent()).toContain('Set by the operator: RPM, TPM, models, budget');

    const own = await openLimits(page, 'own');
    await own.getByLabel('Requests per minute (RPM)').fill('2000');
    await own.getByRole('button', { name: 'Save limits' }).click();
    await own.waitFor({ state: 'detached' });
    await expect.poll(() => keyRow(page, 'own').textContent()).toContain('Set by the operator: RPM');
    await screenshot(page, 'desktop-keys-set-by-operator');

    // Now the operator's: the owner may no longer raise it.
    await owner.page.reload();
    const raise = await openLimits(owner.page, 'own');
    await raise.getByLabel('Requests per minute (RPM)').fill('3000');
    await raise.getByRole('button', { name: 'Save limits' }).click();
    await raise.getByRole('alert').filter({ hasText: 'was set by the operator' }).waitFor();
    expect(pageErrors).toEqual([]);
  });
});
