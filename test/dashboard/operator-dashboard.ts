// Shared by the dashboard's browser tests that start signed in as the operator
// (operator-controls-browser.test.ts, budgets-browser.test.ts, dashboard-owner-browser.test.ts).
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { startTestGateway, TEST_ADMIN_TOKEN, type TestGateway, type TestGatewayOptions } from '../helpers/test-gateway';
import { collectPageErrors, DESKTOP, ensureDashboardBuilt, launchChromium } from './browser';

/** A new desktop-sized page in its own browser context (its own cookies), and the errors it reports. */
export async function openDesktopPage(browser: Browser): Promise<{ page: Page; pageErrors: string[]; close: () => Promise<void> }> {
  const context = await browser.newContext({ viewport: DESKTOP });
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  return { page, pageErrors: collectPageErrors(page), close: () => context.close() };
}

/**
 * For the enclosing describe: a test gateway with one account named `accountName`, and headless
 * Chromium on its dashboard, signed in with the admin token and showing the Accounts page; both
 * closed after the describe. `gatewayOptions` (a function: read in beforeAll) configures the
 * gateway. Read the fields inside tests (they exist from beforeAll on).
 */
export function useOperatorDashboard(accountName: string, setUpTimeoutMs: number, gatewayOptions: () => TestGatewayOptions = () => ({})) {
  const fixture = {
    gw: undefined as unknown as TestGateway,
    browser: undefined as unknown as Browser,
    page: undefined as unknown as Page,
    pageErrors: [] as string[],
    accountId: '',
  };
  beforeAll(async () => {
    await ensureDashboardBuilt();
    fixture.gw = await startTestGateway(gatewayOptions());
    fixture.accountId = await fixture.gw.createAccount(accountName);
    fixture.browser = await launchChromium();
    ({ page: fixture.page, pageErrors: fixture.pageErrors } = await openDesktopPage(fixture.browser));
    const { page } = fixture;
    await page.goto(`${fixture.gw.baseUrl}/dashboard/`);
    await page.getByLabel('Admin token').fill(TEST_ADMIN_TOKEN);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Accounts', level: 1 }).waitFor();
  }, setUpTimeoutMs);
  afterAll(async () => {
    await fixture.browser?.close();
    await fixture.gw?.close();
  });
  return fixture;
}
