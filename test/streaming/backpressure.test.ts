import { request as httpRequest, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startE2e, type E2e } from '../e2e/helpers';
import { chunk, usageChunk } from '../fixtures/openai/openai-bodies';
import { startMockOpenAiUpstream, type MockOpenAiUpstream, type SseStep } from '../helpers/mock-openai-upstream';

/**
 * A client that stops reading a stream stops the upstream too: the gateway writes only
 * what the client's socket takes, pulls the upstream's events only as fast as it writes, and
 * so leaves them in the upstream's socket; nothing is gathered in the gateway's memory.
 * Once the client reads again, every event arrives.
 */
const EVENTS = 30_000;
const WORD = 'x'.repeat(1_000);

const STREAM: SseStep[] = [
  { data: chunk({ role: 'assistant', content: '' }) },
  ...Array.from({ length: EVENTS }, () => ({ data: chunk({ content: WORD }) })),
  { data: chunk({}, 'stop') },
  { data: usageChunk(5, EVENTS) },
];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('back-pressure of a stream', () => {
  let upstream: MockOpenAiUpstream;
  let e2e: E2e;
  beforeAll(async () => {
    upstream = await startMockOpenAiUpstream();
    e2e = await startE2e({
      configYaml: `
upstream: { connect_timeout_ms: 1000, first_byte_timeout_ms: 2000, idle_timeout_ms: 10000, max_retries: 0, retry_base_delay_ms: 1 }
providers:
  oai: { type: openai, base_url: ${upstream.baseUrl}, api_key_env: PRESSURE_OPENAI_KEY }
models:
  - { id: gpt-chat, provider: oai, upstream_model: gpt-upstream, capabilities: [chat], context_window: 128000, pricing: { input_per_million: 1, output_per_million: 1 } }
`,
      env: { PRESSURE_OPENAI_KEY: 'sk-pressure' },
    });
  });
  afterAll(async () => {
    await e2e?.close();
    await upstream?.close();
  });

  it('holds the upstream while the client does not read, and delivers everything once it does', async () => {
    upstream.reply({ type: 'sse', events: STREAM });
    const url = new URL(`${e2e.gateway.baseUrl}/v1/chat/completions`);
    const body = JSON.stringify({ model: 'gpt-chat', stream: true, messages: [{ role: 'user', content: 'go' }] });
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const outgoing = httpRequest(
        url,
        { method: 'POST', headers: { authorization: `Bearer ${e2e.apiKey}`, 'content-type': 'application/json' } },
        resolve,
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });
    expect(response.statusCode).toBe(200);
    response.pause();

    // The upstream's writes stall well before the end while nobody reads.
    let written = -1;
    for (let stable = 0; stable < 4;) {
      await sleep(100);
      const now = upstream.requests[0]?.eventsWritten ?? 0;
      stable = now === written ? stable + 1 : 0;
      written = now;
    }
    expect(written).toBeGreaterThan(0);
    expect(written).toBeLessThan(STREAM.length);

    response.setEncoding('utf8');
    let text = '';
    for await (const piece of response) text += piece as string;
    expect(upstream.requests[0]?.eventsWritten).toBe(STREAM.length);
    const events = text.split('\n\n').filter((event) => event.startsWith('data: '));
    expect(events.at(-1)).toBe('data: [DONE]');
    expect(events.filter((event) => event.includes(WORD))).toHaveLength(EVENTS);
  });
});
