import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { runProxyScript } from './proxy-script';

/**
 * A second reference beside the bare proxy (`npm run bench -- --json-proxy`): what any JSON
 * gateway has to do and nothing more. It reads the request body, parses it, swaps the model
 * name, sends it upstream through an undici Pool (the gateway's client), parses the reply,
 * swaps the model name back and serializes it. No auth, no limits, no usage, no log, no
 * metrics: the gateway's CPU beyond this one is the price of those. Non-streaming routes only.
 */
export function createJsonProxy(upstream: string) {
  const pool = new Pool(upstream, { connections: null, pipelining: 1 });
  const answer = (response: ServerResponse, status: number, json: string) => {
    response.writeHead(status, ['content-type', 'application/json', 'content-length', String(Buffer.byteLength(json))]);
    response.end(json);
  };
  const forward = async (request: IncomingMessage, response: ServerResponse, chunks: Buffer[]) => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { model?: string };
    const model = body.model;
    body.model = 'bench-upstream';
    const reply = await pool.request({
      path: request.url ?? '/',
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', authorization: 'Bearer sk-bench-upstream' },
      body: JSON.stringify(body),
    });
    const parsed = JSON.parse(await reply.body.text()) as { model?: string };
    parsed.model = model;
    answer(response, reply.statusCode, JSON.stringify(parsed));
  };
  return createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      forward(request, response, chunks).catch(() => {
        if (!response.headersSent) answer(response, 502, '{"error":{"message":"upstream failed"}}');
        else response.destroy();
      });
    });
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await runProxyScript(process.argv.slice(2), (upstream) => createJsonProxy(upstream.origin));
}
