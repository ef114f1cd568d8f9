import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { chromium, type Browser, type Page } from 'playwright-core';

/**
 * Headless Chromium for the dashboard tests: Debian's package at /usr/bin/chromium, driven by
 * playwright-core (no browser download). Without it the tests are skipped with a message;
 * CI (.ci/run) installs it.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const chromiumAvailable = existsSync(CHROMIUM_PATH);

const root = fileURLToPath(new URL('../..', import.meta.url));
export const SCREENSHOT_DIRECTORY = path.join(root, 'test-artifacts', 'screenshots');

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** The tests serve dashboard/dist; build it when a fresh checkout has none (npm install builds it too). */
export async function ensureDashboardBuilt(): Promise<void> {
  if (existsSync(path.join(root, 'dashboard', 'dist', 'index.html'))) return;
  await promisify(execFile)('npm', ['run', '-s', 'build'], { cwd: root });
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIRECTORY, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOT_DIRECTORY, `${name}.png`), fullPage: true });
}

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

/** Errors the page reported (uncaught exceptions, console errors such as CSP violations). */
export function collectPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    // The 4xx answers the tests provoke on purpose show up as failed resource loads.
    if (message.type() === 'error' && !/status of 4\d\d/.test(message.text())) errors.push(`console: ${message.text()}`);
  });
  return errors;
}

/** Every form control with no accessible name (label, aria-label or text): should be none. */
export const UNLABELLED_CONTROLS = `[...document.querySelectorAll('input, select, textarea, button')]
  .filter((element) => !(element.labels && element.labels.length) && !element.getAttribute('aria-label') && !element.getAttribute('aria-labelledby') && !element.textContent.trim())
  .map((element) => element.outerHTML)`;
