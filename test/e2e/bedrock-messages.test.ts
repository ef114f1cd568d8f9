import { describe, expect, it } from 'vitest';
import { anthropicChunks, converseReply } from '../helpers/mock-bedrock-upstream';
import { CACHED_CLAUDE_EVENT, claudeMessage, useBedrockE2e } from './bedrock-setup';
import { streamedMessage, usageFor } from './helpers';

/**
 * POST /v1/messages onto a bedrock-type provider, driven by the official @anthropic-ai/sdk:
 * Claude passed through InvokeModel and InvokeModelWithResponseStream (Anthropic's body and
 * events, inside Bedrock's framing), other models translated to Converse (docs/bedrock.md).
 */
/** A Claude stream's first event, as Bedrock wraps it in a chunk. */
const MESSAGE_START = {
  type: 'message_start',
  message: { ...claudeMessage({ input_tokens: 12, output_tokens: 1 }), content: [], stop_reason: null },
};

/** A streamed Messages request read as raw server-sent events (the SDK would throw at the error event). */
function streamHello(e2e: { gateway: { baseUrl: string }; apiKey: string }): Promise<Response> {
  return fetch(`${e2e.gateway.baseUrl}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': e2e.apiKey, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model: 'claude-bedrock', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'Hello' }] }),
  });
}

describe('e2e: /v1/messages onto the bedrock provider', () => {
  const fixture = useBedrockE2e();

  it('passes a Claude request through InvokeModel with Anthropic’s body: version in the body, model in the path, betas carried', async () => {
    const { upstream, e2e } = fixture;
    upstream.reply({
      type: 'json',
      body: claudeMessage({ input_tokens: 100, output_tokens: 50, cache_read_input_tokens: 400, cache_creation_input_tokens: 300 }),
    });
    const { data, response } = await fixture.e2e.anthropic.messages
      .create(
        {
          model: 'claude-bedrock',
          max_tokens: 64,
          system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
          messages: [{ role: 'user', content: 'Hello' }],
        },
        { headers: { 'anthropic-beta': 'context-1m-2025-08-07, interleaved-thinking-2025-05-14' } },
      )
      .withResponse();
    expect(data.content).toEqual([{ type: 'text', text: 'Hi from Bedrock.' }]);
    const [request] = upstream.requests;
    expect(request?.path).toBe('/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke');
    expect(request?.body).toEqual({
      max_tokens: 64,
      system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: 'Hello' }],
      anthropic_version: 'bedrock-2023-05-31',
      anthropic_beta: ['context-1m-2025-08-07', 'interleaved-thinking-2025-05-14'],
    });
    const event = await usageFor(e2e, response.headers.get('x-request-id'));
    expect(event).toMatchObject(CACHED_CLAUDE_EVENT);
  });

  it('streams InvokeModelWithResponseStream chunks back as Anthropic events', async () => {
    const { upstream, e2e } = fixture;
    upstream.reply({
      type: 'events',
      slices: [7, 50],
      events: anthropicChunks([
        { type: 'message_start', message: { ...claudeMessage({ input_tokens: 12, output_tokens: 1 }), content: [], stop_reason: null } },
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi from ' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Bedrock.' } },
        { type: 'content_block_stop', index: 0 },
        { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 6 } },
        {
          type: 'message_stop',
          'amazon-bedrock-invocationMetrics': { inputTokenCount: 12, outputTokenCount: 6, invocationLatency: 300, firstByteLatency: 90 },
        },
      ]),
    });
    const { message: final, requestId } = await streamedMessage(fixture.e2e, {
      model: 'claude-bedrock',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Hello' }],
    });
    expect(final.content).toEqual([{ type: 'text', text: 'Hi from Bedrock.' }]);
    expect(final.usage).toMatchObject({ input_tokens: 12, output_tokens: 6 });
    expect(upstream.requests[0]?.path).toBe('/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke-with-response-stream');
    expect(upstream.requests[0]?.body).not.toHaveProperty('stream');
    expect(await usageFor(e2e, requestId)).toMatchObject({ promptTokens: 12, completionTokens: 6, stream: true, status: 200 });
  });

  it('translates a Messages request for a model that is not Claude to Converse', async () => {
    const { upstream } = fixture;
    upstream.reply(converseReply([{ text: 'Nova answers.' }], 'end_turn', { inputTokens: 7, outputTokens: 2 }));
    const reply = await fixture.e2e.anthropic.messages.create({
      model: 'nova',
      max_tokens: 32,
      messages: [{ role: 'user', content: 'Hello' }],
    });
    expect(reply.content).toEqual([{ type: 'text', text: 'Nova answers.' }]);
    expect(reply.usage).toMatchObject({ input_tokens: 7, output_tokens: 2 });
    expect(upstream.requests[0]?.path).toBe('/model/amazon.nova-pro-v1%3A0/converse');
  });

  it('sends an exception inside the stream to the client as an Anthropic error event', async () => {
    const { upstream, e2e } = fixture;
    upstream.reply({
      type: 'events',
      events: [
        ...anthropicChunks([MESSAGE_START, { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }]),
        { exception: 'modelStreamErrorException', message: 'The model stopped.' },
      ],
    });
    const response = await streamHello(e2e);
    const text = await response.text();
    expect(response.status).toBe(200);
    expect(text).toContain('event: message_start\n');
    expect(text).toMatch(
      /event: error\ndata: \{"type":"error","error":\{"type":"api_error","message":"The provider \\"aws\\" is unavailable/,
    );
    const event = await usageFor(e2e, response.headers.get('x-request-id'));
    expect(event).toMatchObject({ status: 502, errorCode: 'upstream_unavailable' });
  });

  it.each([
    ['a chunk without its bytes', { event: 'chunk', payload: { data: 'eyJ9' } }],
    ['bytes that are not an Anthropic event', { event: 'chunk', payload: { bytes: Buffer.from('{"delta":{}}').toString('base64') } }],
  ])('ends the stream with an error event after %s', async (_case, malformed) => {
    const { upstream, e2e } = fixture;
    upstream.reply({
      type: 'events',
      events: [...anthropicChunks([MESSAGE_START]), malformed],
    });
    const response = await streamHello(e2e);
    const text = await response.text();
    expect(text).toContain('event: message_start\n');
    expect(text).toMatch(/event: error\ndata: \{"type":"error","error":\{"type":"api_error"/);
    expect(text).not.toContain('"delta":{}');
    expect(await usageFor(e2e, response.headers.get('x-request-id'))).toMatchObject({ status: 502, errorCode: 'upstream_bad_response' });
  });

  it('counts tokens with Bedrock’s CountTokens for Claude, and with the gateway’s tokenizer for other models', async () => {
    const { upstream } = fixture;
    upstream.reply({ type: 'json', body: { inputTokens: 42 } });
    const counted = await fixture.e2e.anthropic.messages.countTokens(
      { model: 'claude-bedrock', messages: [{ role: 'user', content: 'Hello' }] },
      { headers: { 'anthropic-beta': 'token-counting-2024-11-01' } },
    );
    expect(counted.input_tokens).toBe(42);
    const [request] = upstream.requests;
    expect(request?.path).toBe('/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/count-tokens');
    const body = request?.body as { input: { invokeModel: { body: string } } };
    expect(JSON.parse(Buffer.from(body.input.invokeModel.body, 'base64').toString('utf8'))).toEqual({
      max_tokens: 1,
      messages: [{ role: 'user', content: 'Hello' }],
      anthropic_version: 'bedrock-2023-05-31',
      anthropic_beta: ['token-counting-2024-11-01'],
    });
    upstream.requests.length = 0;
    const estimated = await fixture.e2e.anthropic.messages.countTokens({ model: 'nova', messages: [{ role: 'user', content: 'Hello' }] });
    expect(estimated.input_tokens).toBeGreaterThan(0);
    expect(upstream.requests).toHaveLength(0);
  });
});
