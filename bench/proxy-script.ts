import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';

/**
 * The command line of the reference proxies (bare-proxy.ts, json-proxy.ts): `--upstream URL
 * [--port N]`; prints `{"port": N}` once listening (what startScript waits for) and exits on SIGTERM.
 */
export async function runProxyScript(argv: string[], create: (upstream: URL) => Server): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { port: { type: 'string', default: '0' }, upstream: { type: 'string' } } });
  const server = create(new URL(values.upstream ?? 'http://127.0.0.1:8081'));
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => server.listen(Number(values.port), '127.0.0.1', resolve));
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
  process.once('SIGTERM', () => process.exit(0));
}
