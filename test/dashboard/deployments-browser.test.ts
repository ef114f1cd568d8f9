import { beforeAll, describe, expect, it } from 'vitest';
import { startMockOpenAiUpstream, type MockOpenAiUpstream } from '../helpers/mock-openai-upstream';
import { fleetConfig, LETTERS, OK, type Letter } from '../routing/fleet';
import { chromiumAvailable, screenshot } from './browser';
import { openDesktopPage, useOperatorDashboard } from './operator-dashboard';

/*
 * docs/routing.md, "Operator control", in the dashboard (headless Chromium): the Models page
 * shows the operator each model's deployments with their state, cooldown and recent traffic,
 * and disables and enables one; an account owner sees the catalogue without them.
 */
const STEP_TIMEOUT = 60_000;

const RATE_LIMITED = {
  type: 'json' as const,
  status: 429,
  headers: { 'retry-after': '120' },
  body: { error: { message: 'Rate limit reached.', type: 'requests', param: null, code: 'rate_limit_exceeded' } },
};

describe.skipIf(!chromiumAvailable)('deployments on the Models page', { timeout: STEP_TIMEOUT }, () => {
  const upstreams = {} as Record<Letter, MockOpenAiUpstream>;
  beforeAll(async () => {
    for (const letter of LETTERS) {
      upstreams[letter] = await startMockOpenAiUpstream();
      upstreams[letter].setDefault(OK(letter));
    }
    return async () => {
      for (const letter of LETTERS) await upstreams[letter].close();
    };
  });
  // Strict order: dep-a is always tried first.
  const dashboard = useOperatorDashboard('Initech', STEP_TIMEOUT, () => ({
    configYaml: fleetConfig(upstreams, { routing: '{ strategy: priority }' }),
  }));

  const deploymentRow = (id: string) =>
    dashboard.page
      .getByRole('region', { name: 'Deployments' })
      .locator('tbody tr', { has: dashboard.page.getByRole('rowheader', { name: id, exact: true }) });
  const cell = (id: string, label: string) => deploymentRow(id).locator(`[data-label="${label}"]`).textContent();
  const stateOf = async (id: string) => {
    const response = await dashboard.gw.http.get('/v1/admin/deployments').set(dashboard.gw.admin()).expect(200);
    return (response.body.data as { id: string; state: string }[]).find((deployment) => deployment.id === id)?.state;
  };

  it('shows each deployment’s state, cooldown and last five minutes, and filters them with the models', async () => {
    const { gw, page, accountId } = dashboard;
    const { key } = await gw.createKey(accountId);
    // dep-a answers 429 with retry-after: the request moves on to dep-b, and dep-a cools down.
    upstreams.a.reply(RATE_LIMITED);
    const response = await gw.chat(key, { model: 'fleet' }).expect(200);
    expect(response.headers['x-gateway-deployment']).toBe('dep-b');

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Models' }).click();
    await page.getByRole('heading', { name: 'Deployments', level: 2 }).waitFor();
    expect(await cell('dep-a', 'State')).toMatch(/^Cooling downuntil /);
    expect(await deploymentRow('dep-a').locator('time').getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect([await cell('dep-a', 'Requests (5 min)'), await cell('dep-a', 'Errors (5 min)')]).toEqual(['1', '1']);
    expect(await cell('dep-b', 'State')).toBe('Healthy');
    expect([await cell('dep-b', 'Requests (5 min)'), await cell('dep-b', 'Errors (5 min)')]).toEqual(['1', '0']);
    expect([await cell('dep-c', 'Requests (5 min)'), await cell('dep-c', 'In flight')]).toEqual(['0', '0']);
    expect(await cell('embed-a', 'Model')).toBe('fleet-embed');
    await screenshot(page, 'desktop-models-deployments');

    await page.getByLabel('Filter models').fill('embeddings');
    await deploymentRow('dep-a').waitFor({ state: 'detached' });
    expect(await deploymentRow('embed-b').count()).toBe(1);
    await page.getByLabel('Filter models').fill('');
    await deploymentRow('dep-a').waitFor();
  });

  it('disables a deployment after a confirmation, and enables it again', async () => {
    const { gw, page, accountId, pageErrors } = dashboard;
    await page.getByRole('button', { name: 'Disable deployment dep-c' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Disable “dep-c”?' });
    await dialog.getByRole('button', { name: 'Disable deployment' }).click();
    await expect.poll(() => cell('dep-c', 'State')).toBe('Disabled');
    expect(await stateOf('dep-c')).toBe('disabled');
    // dep-a and dep-b answer 429 from now on: with dep-c disabled, the request fails on them, and dep-c gets nothing.
    for (const letter of ['a', 'b'] as const) upstreams[letter].setDefault(RATE_LIMITED);
    const { key } = await gw.createKey(accountId);
    expect((await gw.chat(key, { model: 'fleet' })).status).toBe(502);
    expect(upstreams.c.requests).toHaveLength(0);

    await page.getByRole('button', { name: 'Enable deployment dep-c' }).click();
    await expect.poll(() => cell('dep-c', 'State')).toBe('Healthy');
    expect(await stateOf('dep-c')).toBe('healthy');
    const answered = await gw.chat(key, { model: 'fleet' }).expect(200);
    expect(answered.headers['x-gateway-deployment']).toBe('dep-c');
    for (const letter of ['a', 'b'] as const) upstreams[letter].setDefault(OK(letter));

    const audit = await gw.http.get('/v1/admin/audit').set(gw.admin()).expect(200);
    const actions = (audit.body.data as { action: string; target_id: string }[])
      .filter((entry) => entry.target_id === 'dep-c')
      .map((entry) => entry.action);
    expect(actions.sort()).toEqual(['deployment.disable', 'deployment.enable']);
    expect(pageErrors).toEqual([]);
  });

  it('shows an account owner the catalogue without its deployments', async () => {
    const { gw, browser, accountId } = dashboard;
    const link = await gw.http.post(`/v1/admin/accounts/${accountId}/login-link`).set(gw.admin()).expect(201);
    const owner = await openDesktopPage(browser);
    try {
      await owner.page.goto(link.body.url as string);
      await owner.page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
      await owner.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Models' }).click();
      await owner.page.getByRole('rowheader', { name: 'fleet-embed', exact: true }).waitFor();
      expect(await owner.page.getByRole('heading', { name: 'Deployments' }).count()).toBe(0);
      expect(await owner.page.content()).not.toContain('dep-a');
      expect((await owner.page.request.get(`${gw.baseUrl}/v1/admin/deployments`)).status()).toBe(403);
      expect(owner.pageErrors).toEqual([]);
    } finally {
      await owner.close();
    }
  });
});
