import { Agent, createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

/**
 * The floor: a pass-through proxy with nothing of a gateway (no parsing, no auth, no limits,
 * no accounting), node:http on both sides with a keep-alive agent. What the gateway costs
 * beyond this is the price of what it does.
 */
export function createBareProxy(upstream: { host: string; port: number }) {
  const agent = new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
  return createServer((request, response) => {
    const outbound = httpRequest(
      { host: upstream.host, port: upstream.port, method: request.method, path: request.url, headers: request.headers, agent },
      (upstreamResponse) => {
        response.writeHead(upstreamResponse.statusCode ?? 502, upstreamResponse.headers);
        upstreamResponse.pipe(response);
      },
    );
    outbound.on('error', () => {
      if (!response.headersSent) response.writeHead(502);
      response.end();
    });
    response.on('close', () => {
      if (!response.writableFinished) outbound.destroy();
    });
    request.pipe(outbound);
  });
}

async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { port: { type: 'string', default: '0' }, upstream: { type: 'string' } } });
  const upstream = new URL(values.upstream ?? 'http://127.0.0.1:8081');
  const server = createBareProxy({ host: upstream.hostname, port: Number(upstream.port) });
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => server.listen(Number(values.port), '127.0.0.1', resolve));
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
  process.once('SIGTERM', () => process.exit(0));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  void main(process.argv.slice(2));
}
