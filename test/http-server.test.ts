import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slowChatConfig, startTestGateway, type TestGateway } from './helpers/test-gateway';

/**
 * The HTTP server answers what Node refuses (here malformed bytes) in the envelope, except on
 * a socket whose response is already under way: a second status line there would corrupt the
 * reply, so that socket is closed instead (server/http-server.ts tracks each socket's response).
 */
const CONFIG = slowChatConfig('{ chunk_delay_ms: 80, chunks: 10 }');

let gw: TestGateway;
let key: string;
beforeAll(async () => {
  gw = await startTestGateway({ configYaml: CONFIG });
  ({ key } = await gw.createKey(await gw.createAccount()));
});
afterAll(() => gw?.close());

/** Writes `first`, then `second` after `delayMs`; resolves with everything read until the socket closed. */
function exchange(first: string, second: string, delayMs: number): Promise<string> {
  const { hostname, port } = new URL(gw.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(first);
      setTimeout(() => socket.write(second), delayMs);
    });
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
  });
}

const garbage = 'NOT HTTP AT ALL\r\n\r\n';

describe('malformed bytes after a request', () => {
  it('while its stream is under way: the socket is closed, no second status line', async () => {
    const body = JSON.stringify({ model: 'slow-chat', messages: [{ role: 'user', content: 'a b c' }], stream: true });
    const request = `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    const text = await exchange(request, garbage, 250);
    expect(text.startsWith('HTTP/1.1 200 OK')).toBe(true);
    expect(text).toContain('data: ');
    expect(text).not.toContain('HTTP/1.1 400');
  });

  it('after a response finished: 400 in the envelope', async () => {
    const request = 'GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n';
    const text = await exchange(request, garbage, 250);
    expect(text.startsWith('HTTP/1.1 200 OK')).toBe(true);
    expect(text).toContain('HTTP/1.1 400 Bad Request');
    expect(text).toContain('"code":"bad_request"');
  });
});
