import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

/**
 * docs/tracing.md: a gateway with traces off loads none of the OpenTelemetry SDK; with traces
 * on it does, at start. Each in a fresh process (loaded-modules.ts), since a module once loaded
 * stays loaded.
 */
const script = fileURLToPath(new URL('./loaded-modules.ts', import.meta.url));
const root = fileURLToPath(new URL('../..', import.meta.url));

async function loadedWith(env: Record<string, string>): Promise<{ tracing: boolean; loaded: number }> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', script], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
  });
  return JSON.parse(stdout) as { tracing: boolean; loaded: number };
}

it('loads no OpenTelemetry SDK module with traces off, and loads it with traces on', async () => {
  expect(await loadedWith({})).toEqual({ tracing: false, loaded: 0 });
  const on = await loadedWith({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' });
  expect(on.tracing).toBe(true);
  expect(on.loaded).toBeGreaterThan(0);
}, 60_000);
