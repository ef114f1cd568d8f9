import { Agent, createServer, request as httpRequest } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runProxyScript } from './proxy-script';

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

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await runProxyScript(process.argv.slice(2), (upstream) => createBareProxy({ host: upstream.hostname, port: Number(upstream.port) }));
}
