import { connect, type Socket } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { MemoryUsageSink } from '../../server/usage/types';
import { slowChatConfig } from '../helpers/test-gateway';
import { useTestGateway } from '../helpers/use-test-gateway';

/**
 * Limits against floods and slow clients (docs/rate-limits.md, docs/configuration.md): at most
 * `limits.max_streams_per_key` open streams per key (429, retry-after 1, a clear message),
 * and the server timeouts: headers and body must arrive in time, answered in the envelope.
 */
const MAX_STREAMS = 2;
const CONFIG = slowChatConfig(
  '{ chunk_delay_ms: 80, chunks: 10 }',
  `limits: { default_rpm: 100000, default_tpm: 100000000, max_streams_per_key: ${MAX_STREAMS} }\n`,
).replace('upstream:', `server:\n  headers_timeout_ms: 300\n  request_timeout_ms: 600\n  keep_alive_timeout_ms: 5000\nupstream:`);

const streamBody = JSON.stringify({ model: 'slow-chat', messages: [{ role: 'user', content: 'a b c d e f g h i j' }], stream: true });

describe('max concurrent streams per key', () => {
  const usage = new MemoryUsageSink();
  const t = useTestGateway(() => ({ configYaml: CONFIG, usageSink: usage }));
  let otherKey: string;
  beforeAll(async () => {
    otherKey = (await t.gateway.createKey(t.accountId)).key;
  });

  const openStream = (authKey: string) =>
    fetch(`${t.gateway.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${authKey}`, 'content-type': 'application/json' },
      body: streamBody,
    });

  it(`refuses stream ${MAX_STREAMS + 1} of one key with 429 and retry-after 1; other keys and later streams are fine`, async () => {
    const open = await Promise.all(Array.from({ length: MAX_STREAMS }, () => openStream(t.key)));
    expect(open.map((response) => response.status)).toEqual([200, 200]);
    const recordedBefore = usage.events.length;

    const refused = await openStream(t.key);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.headers.get('x-ratelimit-limit-requests')).toMatch(/^\d+$/);
    const body = (await refused.json()) as { error: { type: string; code: string; message: string } };
    expect(body.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded' });
    expect(body.error.message).toMatch(/concurrent streams/);
    // A request refused by the gateway is not counted as usage.
    expect(usage.events.length).toBe(recordedBefore);

    const other = await openStream(otherKey);
    expect(other.status).toBe(200);
    // Non-streamed calls are not limited by it.
    const plain = await t.gateway.http
      .post('/v1/chat/completions')
      .set('authorization', `Bearer ${t.key}`)
      .send({ model: 'slow-chat', messages: [{ role: 'user', content: 'x' }] });
    expect(plain.status).toBe(200);

    await Promise.all([...open, other].map((response) => response.text()));
    const again = await openStream(t.key);
    expect(again.status).toBe(200);
    expect(await again.text()).toContain('[DONE]');
  });

  it('a stream the client abandons frees its slot', async () => {
    const controllers = Array.from({ length: MAX_STREAMS }, () => new AbortController());
    const open = await Promise.all(
      controllers.map((controller) =>
        fetch(`${t.gateway.baseUrl}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
          body: streamBody,
          signal: controller.signal,
        }),
      ),
    );
    expect(open.map((response) => response.status)).toEqual([200, 200]);
    for (const controller of controllers) controller.abort();
    const abortedAt = performance.now();
    let accepted: Response | null = null;
    while (accepted === null && performance.now() - abortedAt < 2_000) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      const response = await openStream(t.key);
      if (response.status === 200) accepted = response;
      else await response.text();
    }
    // Well before the abandoned streams (10 chunks x 80 ms) would have ended by themselves.
    expect(performance.now() - abortedAt).toBeLessThan(400);
    await accepted?.text();
  });
});

/** A raw socket, for what fetch cannot do: send half a request and wait. */
function rawExchange(port: number, send: (socket: Socket) => void): Promise<{ text: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const startedAt = performance.now();
    const socket = connect(port, '127.0.0.1', () => send(socket));
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString()));
    socket.on('error', reject);
    socket.on('close', () => resolve({ text, ms: performance.now() - startedAt }));
  });
}

function statusAndBody(text: string): { status: number; body: unknown } {
  const [head = '', body = ''] = text.split('\r\n\r\n');
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), body: JSON.parse(body) };
}

describe('slow and malformed clients', () => {
  const t = useTestGateway(() => ({ configYaml: CONFIG }));
  let port: number;
  beforeAll(() => {
    port = Number(new URL(t.gateway.baseUrl).port);
  });

  it('headers that never finish (slowloris): 408 in the envelope, then the socket is closed', async () => {
    const { text, ms } = await rawExchange(port, (socket) => socket.write('GET /v1/models HTTP/1.1\r\nHost: x\r\nX-Slow: a'));
    expect(statusAndBody(text)).toEqual({
      status: 408,
      body: { error: { message: expect.any(String), type: 'invalid_request_error', param: null, code: 'request_timeout' } },
    });
    expect(ms).toBeLessThan(5_000);
  });

  it('a body that trickles in slower than request_timeout_ms: 408 in the envelope', async () => {
    const { text } = await rawExchange(port, (socket) => {
      socket.write(
        `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.key}\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"model":`,
      );
    });
    expect(statusAndBody(text)).toMatchObject({ status: 408, body: { error: { code: 'request_timeout' } } });
  });

  it('malformed HTTP: 400 in the envelope', async () => {
    const { text } = await rawExchange(port, (socket) => socket.write('THIS IS NOT HTTP\r\n\r\n'));
    expect(statusAndBody(text)).toMatchObject({ status: 400, body: { error: { type: 'invalid_request_error', code: 'bad_request' } } });
  });

  it('headers over the size limit: 431 in the envelope', async () => {
    const { text } = await rawExchange(port, (socket) =>
      socket.write(`GET /v1/models HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
    );
    expect(statusAndBody(text)).toMatchObject({ status: 431, body: { error: { code: 'headers_too_large' } } });
  });

  it('the request timeout does not cut a stream that lasts longer', async () => {
    const startedAt = performance.now();
    const response = await fetch(`${t.gateway.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'slow-chat',
        messages: [{ role: 'user', content: 'a b c d e f g h i j k l m n o p q r s t u v w x y z' }],
        stream: true,
      }),
    });
    const text = await response.text();
    expect(performance.now() - startedAt).toBeGreaterThan(600);
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
  });
});
