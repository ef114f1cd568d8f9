import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import express, { type NextFunction, type Request, type Response } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayError } from '../../server/errors/gateway-error';
import { parseBody } from '../../server/middleware/parse-body';

/** parseBody, then the parsed body (or the error's code) as JSON. */
function echoApp(limitBytes = 1024) {
  const app = express();
  app.use(parseBody(limitBytes));
  app.post('/', (req: Request, res: Response) => res.json({ body: req.body as unknown }));
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const gatewayError = error as GatewayError;
    res.status(gatewayError.status).json({ code: gatewayError.code, message: gatewayError.message });
  });
  return app;
}

let server: ReturnType<ReturnType<typeof express>['listen']>;
beforeAll(async () => {
  server = echoApp().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

/** The bytes exactly as given (a test client would re-encode a Buffer sent as JSON). */
function post(
  body: Buffer | string,
  headers: Record<string, string>,
  chunked = false,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const outbound = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/',
        headers: chunked ? headers : { ...headers, 'content-length': String(bytes.length) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
          }),
        );
      },
    );
    outbound.on('error', reject);
    // A write before end() makes Node send the body chunked when no length was given.
    outbound.write(bytes);
    outbound.end();
  });
}

describe('parseBody', () => {
  it('reads UTF-8 JSON with or without a charset, dropping a leading BOM like body-parser', async () => {
    for (const type of ['application/json', 'application/json; charset=utf-8', 'application/json;charset="UTF-8"']) {
      const response = await post('\uFEFF{"text":"héllo 世界"}', { 'content-type': type });
      expect(response.status, type).toBe(200);
      expect(response.body).toEqual({ body: { text: 'héllo 世界' } });
    }
    // Any JSON value, as body-parser's non-strict mode allows; a body that is only a BOM is {}.
    expect((await post('[1,2]', { 'content-type': 'application/json' })).body).toEqual({ body: [1, 2] });
    expect((await post('\uFEFF', { 'content-type': 'application/json' })).body).toEqual({ body: {} });
  });

  it('answers invalid JSON with invalid_json, the same whichever reader took it', async () => {
    for (const type of ['application/json', 'application/json; charset=utf-16le']) {
      const response = await post('{"a":', { 'content-type': type });
      expect(response.status, type).toBe(400);
      expect(response.body).toEqual({ code: 'invalid_json', message: 'The request body is not valid JSON.' });
    }
  });

  it('leaves compressed bodies, other charsets and chunked bodies to body-parser', async () => {
    const gzipped = await post(gzipSync(Buffer.from('{"zipped":true}')), {
      'content-type': 'application/json',
      'content-encoding': 'gzip',
    });
    expect(gzipped.body).toEqual({ body: { zipped: true } });
    const utf16 = await post(Buffer.from('{"wide":"é"}', 'utf16le'), { 'content-type': 'application/json; charset=utf-16le' });
    expect(utf16.body).toEqual({ body: { wide: 'é' } });
    const latin1 = await post('{"a":1}', { 'content-type': 'application/json; charset=latin1' });
    expect(latin1.status).toBe(415);
    expect(latin1.body.code).toBe('unsupported_media_type');
    const chunked = await post('{"chunked":1}', { 'content-type': 'application/json' }, true);
    expect(chunked.body).toEqual({ body: { chunked: 1 } });
  });

  it('refuses a body over the limit before reading it', async () => {
    const response = await post(JSON.stringify({ text: 'x'.repeat(2000) }), { 'content-type': 'application/json' });
    expect(response.status).toBe(413);
    expect(response.body.code).toBe('payload_too_large');
  });
});
