import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_TEST_CONFIG, startTestGateway, type TestGateway } from '../helpers/test-gateway';

/**
 * The body stage's early answers (docs/errors.md): a body refused before it was read (over
 * the limit, not JSON) is read off and dropped, then answered with `Connection: close`, so
 * a client still sending gets the error envelope rather than a reset connection.
 */
const LIMIT = 1024;
let gw: TestGateway;
let key: string;

beforeAll(async () => {
  gw = await startTestGateway({ configYaml: `server: { body_limit_bytes: ${LIMIT} }\n${BASE_TEST_CONFIG}` });
  ({ key } = await gw.createKey(await gw.createAccount()));
});
afterAll(() => gw?.close());

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: { error?: { code?: string; type?: string; param?: string | null } };
}

/**
 * Sends `totalBytes` in 64 KiB writes, each after the previous one was taken by the socket,
 * as a client uploading a large body does; resolves with the answer once it has sent all
 * (or fails with the socket error the client saw).
 */
function upload(path: string, totalBytes: number, headers: Record<string, string>, chunked = false): Promise<Answer> {
  const url = new URL(path, gw.baseUrl);
  return new Promise((resolve, reject) => {
    const outbound = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method: 'POST',
        path: url.pathname,
        headers: chunked ? headers : { ...headers, 'content-length': String(totalBytes) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: JSON.parse(text) as Answer['body'] });
        });
      },
    );
    outbound.on('error', reject);
    const piece = Buffer.alloc(64 * 1024, 0x20);
    let sent = 0;
    const writeMore = (): void => {
      while (sent < totalBytes) {
        const size = Math.min(piece.length, totalBytes - sent);
        sent += size;
        if (!outbound.write(size === piece.length ? piece : piece.subarray(0, size))) return void outbound.once('drain', writeMore);
      }
      outbound.end();
    };
    writeMore();
  });
}

const auth = () => ({ authorization: `Bearer ${key}` });

describe('body stage: early errors reach a client still sending', () => {
  it('a body over the limit (Content-Length): 413 envelope and Connection: close, not a reset', async () => {
    const answer = await upload('/v1/chat/completions', 4 * 1024 * 1024, { ...auth(), 'content-type': 'application/json' });
    expect(answer.status).toBe(413);
    expect(answer.body.error).toMatchObject({ type: 'invalid_request_error', code: 'payload_too_large' });
    expect(answer.headers.connection).toBe('close');
    expect(answer.headers['x-request-id']).toBeTruthy();
  });

  it('a chunked body over the limit: the same', async () => {
    const answer = await upload('/v1/embeddings', 2 * 1024 * 1024, { ...auth(), 'content-type': 'application/json' }, true);
    expect(answer.status).toBe(413);
    expect(answer.body.error?.code).toBe('payload_too_large');
    expect(answer.headers.connection).toBe('close');
  });

  it('a large body that is not JSON: 415 after it was read off', async () => {
    // Chunked: no length to refuse it by, so the content type is what refuses it.
    const answer = await upload('/v1/chat/completions', 4 * 1024 * 1024, { ...auth(), 'content-type': 'text/plain' }, true);
    expect(answer.status).toBe(415);
    expect(answer.body.error?.code).toBe('unsupported_media_type');
    expect(answer.headers.connection).toBe('close');
  });

  it('the routes Express serves do the same', async () => {
    const answer = await upload('/v1/admin/accounts', 4 * 1024 * 1024, { ...gw.admin(), 'content-type': 'application/json' });
    expect(answer.status).toBe(413);
    expect(answer.body.error?.code).toBe('payload_too_large');
    expect(answer.headers.connection).toBe('close');
  });

  it('a body read in full keeps the connection, also when refused', async () => {
    const answer = await upload('/v1/chat/completions', 100, { ...auth(), 'content-type': 'application/json' });
    expect(answer.status).toBe(400);
    expect(answer.body.error?.code).toBe('invalid_json');
    expect(answer.headers.connection).toBe('keep-alive');
  });
});

describe('embeddings input', () => {
  const embed = (body: object) => gw.http.post('/v1/embeddings').set(auth()).send(body);

  it('missing: 400 missing_field naming input, like chat messages', async () => {
    const response = await embed({ model: 'mock-embed' });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ type: 'invalid_request_error', code: 'missing_field', param: 'input' });
  });

  it('an empty string, alone or in the batch: 400 invalid_value', async () => {
    const alone = await embed({ model: 'mock-embed', input: '' });
    expect(alone.status).toBe(400);
    expect(alone.body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_value', param: 'input' });
    const inBatch = await embed({ model: 'mock-embed', input: ['fine', ''] });
    expect(inBatch.status).toBe(400);
    expect(inBatch.body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_value', param: 'input[1]' });
  });
});
