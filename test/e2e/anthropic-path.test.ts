import { describe, expect, it } from 'vitest';
import { messageBody } from '../helpers/mock-anthropic-upstream';
import { apiErrorOf, imageQuestion, PIXEL_PNG_BASE64, useAnthropicE2e } from './helpers';

/**
 * The `anthropic` provider type end to end, beyond what every type shares (provider-paths.test.ts):
 * the official OpenAI client -> the gateway -> a local Messages API, and back. Snapshots hold
 * the translated request the upstream received.
 */
const PROVIDER_KEY = 'sk-ant-api03-E2eAnthropicKey-0123456789abcdefghijklmnop';

describe('e2e: the anthropic provider path', () => {
  const fixture = useAnthropicE2e('haiku', PROVIDER_KEY);

  it('JSON mode: system instruction and "{" prefill out, the whole object back', async () => {
    const { upstream, e2e } = fixture;
    upstream.reply({ type: 'json', body: messageBody([{ type: 'text', text: '"answer":42}' }], 'end_turn') });
    const completion = await e2e.client.chat.completions.create({
      model: 'haiku',
      messages: [{ role: 'user', content: 'Answer in JSON' }],
      response_format: { type: 'json_object' },
    });
    expect(JSON.parse(completion.choices[0]?.message.content ?? '')).toEqual({ answer: 42 });
    expect(upstream.requests[0]?.body).toMatchObject({
      messages: [{ role: 'user' }, { role: 'assistant', content: [{ type: 'text', text: '{' }] }],
    });
    // The key in Anthropic's own header, with the API version; no Authorization header.
    expect(upstream.requests[0]?.headers).toMatchObject({ 'x-api-key': PROVIDER_KEY, 'anthropic-version': '2023-06-01' });
    expect(upstream.requests[0]?.headers.authorization).toBeUndefined();
    expect(upstream.requests[0]?.body).toMatchSnapshot();
  });

  it('stop sequences become stop_sequences; stopping on one is finish_reason stop', async () => {
    const { upstream, e2e } = fixture;
    upstream.reply({
      type: 'json',
      body: { ...messageBody([{ type: 'text', text: 'one, two, ' }], 'stop_sequence'), stop_sequence: 'three' },
    });
    const completion = await e2e.client.chat.completions.create({
      model: 'haiku',
      messages: [{ role: 'user', content: 'Count' }],
      stop: ['three', 'END'],
      max_tokens: 20,
    });
    expect(completion.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: 'one, two, ' } });
    expect(upstream.requests[0]?.body).toMatchObject({ stop_sequences: ['three', 'END'], max_tokens: 20 });
  });

  it('a data URL image part becomes a base64 image block', async () => {
    const { upstream, e2e } = fixture;
    upstream.reply({ type: 'json', body: messageBody([{ type: 'text', text: 'A pixel.' }], 'end_turn') });
    const completion = await e2e.client.chat.completions.create({
      model: 'haiku',
      messages: imageQuestion(),
    });
    expect(completion.choices[0]?.message.content).toBe('A pixel.');
    expect(upstream.requests[0]?.body).toMatchObject({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PIXEL_PNG_BASE64 } },
          ],
        },
      ],
    });
  });

  it('a length stop is finish_reason length', async () => {
    const { upstream, e2e } = fixture;
    upstream.reply({ type: 'json', body: messageBody([{ type: 'text', text: 'Once upon' }], 'max_tokens') });
    const completion = await e2e.client.chat.completions.create({
      model: 'haiku',
      messages: [{ role: 'user', content: 'Tell a story' }],
      max_completion_tokens: 2,
    });
    expect(completion.choices[0]?.finish_reason).toBe('length');
    expect(upstream.requests[0]?.body).toMatchObject({ max_tokens: 2 });
  });

  it('refuses n > 1 with 400 param n, without calling the upstream', async () => {
    const { upstream, e2e } = fixture;
    const error = await apiErrorOf(
      e2e.client.chat.completions.create({ model: 'haiku', messages: [{ role: 'user', content: 'Hi' }], n: 2 }),
    );
    expect(error.status).toBe(400);
    expect(error.error).toMatchObject({ type: 'invalid_request_error', param: 'n' });
    expect(upstream.requests).toHaveLength(0);
  });

  it('refuses embeddings on the chat model', async () => {
    const { upstream, e2e } = fixture;
    const response = await fetch(`${e2e.gateway.baseUrl}/v1/embeddings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${e2e.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'haiku', input: 'x' }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { type: 'invalid_request_error', param: 'model' } });
    expect(upstream.requests).toHaveLength(0);
  });
});
