import { describe, expect, it } from 'vitest';
import type { InFlightUsage, UsageDurability } from '../../server/usage/durability';
import type { UsageEvent } from '../../server/usage/types';
import { MOCK_MODEL, startMockAnthropicUpstream, textStream, type MockAnthropicUpstream } from '../helpers/mock-anthropic-upstream';
import { textResponseStream } from '../helpers/mock-openai-responses';
import { startMockOpenAiUpstream, type MockOpenAiUpstream } from '../helpers/mock-openai-upstream';
import { useGatewayOnUpstreams } from '../helpers/gateway-on-upstreams';
import { BASE_TEST_CONFIG } from '../helpers/test-gateway';

/**
 * docs/usage-durability.md for the pass-through streams: /v1/messages to an anthropic upstream
 * holds message_stop, /v1/responses to a Responses upstream holds response.completed, until
 * the usage event is durable; when it cannot be made so the client gets an error event instead.
 */
class HeldDurability implements UsageDurability {
  readonly finished: UsageEvent[] = [];
  private waiting: { resolve: () => void; reject: (error: unknown) => void } | null = null;
  private onFinish: (() => void) | null = null;

  available(): boolean {
    return true;
  }

  begin(): InFlightUsage {
    return {
      eventId: `held-${this.finished.length}`,
      checkpoint: () => undefined,
      finish: (event) => {
        this.finished.push(event);
        const durable = new Promise<void>((resolve, reject) => {
          this.waiting = { resolve, reject };
        });
        this.onFinish?.();
        return durable;
      },
      cancel: () => undefined,
    };
  }

  /** Resolves once a call handed its event over (and waits for it to be durable). */
  nextFinish(): Promise<void> {
    return new Promise((resolve) => {
      this.onFinish = resolve;
    });
  }

  release(error?: Error): void {
    if (error) this.waiting?.reject(error);
    else this.waiting?.resolve();
  }
}

const CONFIG = (anthropic: MockAnthropicUpstream, native: MockOpenAiUpstream) =>
  BASE_TEST_CONFIG.replace(
    'providers:\n',
    `providers:
  claude: { type: anthropic, base_url: ${anthropic.baseUrl}, api_key_env: TEST_ANTHROPIC_KEY }
  native: { type: openai, base_url: ${native.baseUrl}, api_key_env: TEST_NATIVE_KEY, responses_api: true }
`,
  ).replace(
    'models:\n',
    `models:
  - id: claude-haiku
    provider: claude
    upstream_model: ${MOCK_MODEL}
    capabilities: [chat]
    context_window: 200000
    pricing: { input_per_million: 0.8, output_per_million: 4 }
  - id: native-model
    provider: native
    upstream_model: gpt-upstream
    capabilities: [chat]
    context_window: 128000
    pricing: { input_per_million: 1, output_per_million: 2 }
`,
  );

describe('pass-through streams wait for their usage to be durable', () => {
  const durability = new HeldDurability();
  const fixture = useGatewayOnUpstreams(
    async () => ({ anthropic: await startMockAnthropicUpstream(), native: await startMockOpenAiUpstream() }),
    ({ anthropic, native }) => ({
      configYaml: CONFIG(anthropic, native),
      env: { TEST_ANTHROPIC_KEY: 'sk-ant-test', TEST_NATIVE_KEY: 'sk-native-test' },
      usageDurability: durability,
    }),
  );

  /** Starts a stream; `text()` is what has arrived so far, `done` the whole body. */
  async function openStream(path: string, body: unknown) {
    const response = await fetch(`${fixture.gateway.baseUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fixture.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(200);
    let received = '';
    const decoder = new TextDecoder();
    const done = (async () => {
      for await (const bytes of response.body as ReadableStream<Uint8Array>) received += decoder.decode(bytes, { stream: true });
      return received;
    })();
    return { text: () => received, done };
  }

  /** A streamed "hi" to the anthropic pass-through model. */
  const openMessagesStream = () =>
    openStream('/v1/messages', { model: 'claude-haiku', max_tokens: 32, stream: true, messages: [{ role: 'user', content: 'hi' }] });

  /** A few event-loop turns and a moment: time for anything already written to arrive. */
  const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

  it.each([
    {
      route: '/v1/messages: message_stop only after the usage event is durable',
      reply: () =>
        fixture.upstreams.anthropic.reply({
          type: 'sse',
          events: textStream(['Hel', 'lo'], 'end_turn', { input_tokens: 9, output_tokens: 2 }),
        }),
      open: openMessagesStream,
      usage: { model: 'claude-haiku', promptTokens: 9, completionTokens: 2 },
      delta: 'message_delta',
      last: 'message_stop',
      lastEvent: 'event: message_stop',
    },
    {
      route: '/v1/responses (responses_api): response.completed only after the usage event is durable',
      reply: () => fixture.upstreams.native.reply(textResponseStream('gpt-upstream', ['Str', 'eamed'], { input: 12, output: 3 })),
      open: () => openStream('/v1/responses', { model: 'native-model', input: 'hi', stream: true }),
      usage: { model: 'native-model', promptTokens: 12, completionTokens: 3 },
      delta: 'response.output_text.delta',
      last: 'response.completed',
      lastEvent: 'response.completed',
    },
  ])('$route', async ({ reply, open, usage, delta, last, lastEvent }) => {
    reply();
    const finished = durability.nextFinish();
    const stream = await open();
    await finished;
    await settle();
    expect(durability.finished.at(-1)).toMatchObject({ ...usage, status: 200 });
    expect(stream.text()).toContain(delta);
    expect(stream.text()).not.toContain(last);
    durability.release();
    expect(await stream.done).toContain(lastEvent);
  });

  it('/v1/messages: usage that cannot be made durable ends the stream with an error event, not message_stop', async () => {
    fixture.upstreams.anthropic.reply({ type: 'sse', events: textStream(['Hi'], 'end_turn', { input_tokens: 9, output_tokens: 1 }) });
    const finished = durability.nextFinish();
    const stream = await openMessagesStream();
    await finished;
    durability.release(new Error('disk full'));
    const text = await stream.done;
    expect(text).not.toContain('message_stop');
    expect(text).toContain('"type":"overloaded_error","message":"Usage cannot be recorded right now');
  });
});
