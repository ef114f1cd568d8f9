import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, collectPageErrors, DESKTOP, launchChromium, screenshot } from '../dashboard/browser';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway';

/**
 * GET /docs in Chromium: Scalar renders the operations of /v1/openapi.json with no request
 * leaving the server's origin, and its try-it client sends a request that reaches the server.
 */
if (!chromiumAvailable) console.warn('Skipping the /docs browser test: Chromium is not installed (CI installs it).');

describe.skipIf(!chromiumAvailable)('/docs in a browser', () => {
  let gw: TestGateway;
  let browser: Browser;
  beforeAll(async () => {
    gw = await startTestGateway();
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await gw?.close();
  });

  it('shows the operations, loads nothing from elsewhere, and its try-it request reaches the server', async () => {
    const page = await browser.newPage({ viewport: DESKTOP });
    const errors = collectPageErrors(page);
    const foreign: string[] = [];
    page.on('request', (request) => {
      const url = request.url();
      if (!url.startsWith(gw.baseUrl) && !url.startsWith('data:') && !url.startsWith('blob:')) foreign.push(url);
    });
    const response = await page.goto(`${gw.baseUrl}/docs`);
    expect(response?.status()).toBe(200);
    for (const summary of [
      'Create a chat completion',
      'Create embeddings',
      'List the model catalogue',
      'Per-key usage report of the account',
    ]) {
      await page.getByText(summary).first().waitFor({ state: 'visible', timeout: 30_000 });
    }
    await screenshot(page, 'docs-reference');

    // Try it: the catalogue needs no key. Scalar renders operations as they scroll into view;
    // its address for one opens it. The request the page sends must reach the server and get its reply.
    await page.goto(`${gw.baseUrl}/docs#tag/models/GET/v1/models`);
    const tryIt = page.getByRole('button', { name: /test request\s*\(get \/v1\/models\)/i }).first();
    await tryIt.waitFor({ state: 'visible', timeout: 30_000 });
    await tryIt.click();
    const sent = page.waitForResponse((reply) => reply.url() === `${gw.baseUrl}/v1/models` && reply.request().method() === 'GET', {
      timeout: 30_000,
    });
    await page
      .getByRole('button', { name: /send get request/i })
      .first()
      .click();
    const reply = await sent;
    expect(reply.status()).toBe(200);
    expect(((await reply.json()) as { data: { id: string }[] }).data.map((model) => model.id)).toContain('mock-chat');
    await page.getByText('mock-embed').first().waitFor({ state: 'visible', timeout: 10_000 });
    await screenshot(page, 'docs-try-it');

    expect(foreign).toEqual([]);
    expect(errors).toEqual([]);
  }, 120_000);
});
