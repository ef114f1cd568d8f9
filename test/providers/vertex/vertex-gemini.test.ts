import { describe, expect, it } from 'vitest';
import type { ChatCompletionRequest } from '../../../contract';
import { UpstreamError } from '../../../server/errors/gateway-error';
import { callOptions, collect, rejectionOf } from '../harness';
import { GEMINI_TARGET, modelPath, useVertexTestAdapter } from './harness';

/** Gemini on Vertex AI: the Gemini adapter's translation over Vertex's URLs and bearer tokens. */

const REQUEST: ChatCompletionRequest = {
  model: 'flash',
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Hi' },
  ],
};

const USAGE = { promptTokenCount: 120, cachedContentTokenCount: 100, candidatesTokenCount: 5, thoughtsTokenCount: 3, totalTokenCount: 128 };

function reply(parts: unknown[], finishReason = 'STOP') {
  return {
    candidates: [{ content: { role: 'model', parts }, finishReason, index: 0 }],
    usageMetadata: USAGE,
    modelVersion: 'gemini-2.5-flash',
  };
}

describe('vertex (publisher google): chat', () => {
  const fixture = useVertexTestAdapter('google');

  it('posts generateContent to the publisher model with a bearer token, and maps usage with cached tokens', async () => {
    const { upstream, vertex } = fixture;
    upstream.reply({ type: 'json', body: reply([{ text: 'Hello.' }]) });
    const result = await vertex.adapter.chat(REQUEST, GEMINI_TARGET, callOptions());

    expect(result.completion.choices[0]?.message.content).toBe('Hello.');
    expect(result.completion.model).toBe('flash');
    expect(result.usage).toEqual({ promptTokens: 120, completionTokens: 8, cachedTokens: 100, reasoningTokens: 3 });
    const [sent] = upstream.requests;
    expect(sent?.path).toBe(modelPath('google', 'gemini-2.5-flash', 'generateContent'));
    expect(sent?.headers.authorization).toBe(`Bearer ${upstream.issued[0]?.token}`);
    expect(sent?.headers['x-goog-api-key']).toBeUndefined();
    expect(sent?.body).toMatchObject({
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
      contents: [{ role: 'user', parts: [{ text: 'Hi' }] }],
    });
    expect(upstream.issued.map((entry) => entry.grant)).toEqual(['jwt-bearer']);
  });

  it('sends tools and images as the Gemini API takes them, and maps function calls back', async () => {
    const { upstream, vertex } = fixture;
    upstream.reply({ type: 'json', body: reply([{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }]) });
    const result = await vertex.adapter.chat(
      {
        model: 'flash',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Weather where this was taken?' },
              { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            ],
          },
        ],
        tools: [
          { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } },
        ],
      },
      GEMINI_TARGET,
      callOptions(),
    );
    const choice = result.completion.choices[0];
    expect(choice?.finish_reason).toBe('tool_calls');
    expect(choice?.message.tool_calls?.[0]?.function).toEqual({ name: 'get_weather', arguments: '{"city":"Paris"}' });
    expect(upstream.requests[0]?.body).toMatchObject({
      contents: [
        {
          role: 'user',
          parts: [{ text: 'Weather where this was taken?' }, { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } }],
        },
      ],
      tools: [{ functionDeclarations: [{ name: 'get_weather' }] }],
    });
  });

  it('streams through streamGenerateContent?alt=sse', async () => {
    const { upstream, vertex } = fixture;
    upstream.reply({
      type: 'sse',
      events: [
        { candidates: [{ content: { role: 'model', parts: [{ text: 'Hel' }] }, index: 0 }] },
        { candidates: [{ content: { role: 'model', parts: [{ text: 'lo' }] }, finishReason: 'STOP', index: 0 }], usageMetadata: USAGE },
      ],
    });
    const stream = await vertex.adapter.chatStream(REQUEST, GEMINI_TARGET, callOptions());
    const chunks = await collect(stream.chunks);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe('Hello');
    expect(chunks.at(-1)?.usage).toMatchObject({ prompt_tokens: 120, completion_tokens: 8, prompt_tokens_details: { cached_tokens: 100 } });
    expect(upstream.requests[0]?.path).toBe(modelPath('google', 'gemini-2.5-flash', 'streamGenerateContent?alt=sse'));
  });

  it('maps a quota refusal to a retryable error with the RetryInfo delay, and a bad request to a rejection', async () => {
    const { upstream, vertex } = fixture;
    upstream.reply({
      type: 'json',
      status: 429,
      body: {
        error: {
          code: 429,
          message: 'Quota exceeded for aiplatform.googleapis.com/generate_content_requests_per_minute_per_project_per_base_model.',
          status: 'RESOURCE_EXHAUSTED',
          details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '7s' }],
        },
      },
    });
    const quota = await rejectionOf(vertex.adapter.chat(REQUEST, GEMINI_TARGET, callOptions()));
    expect(quota).toBeInstanceOf(UpstreamError);
    expect(quota).toMatchObject({ retryable: true, retryAfterMs: 7000, upstreamStatus: 429 });

    upstream.reply({
      type: 'json',
      status: 400,
      body: {
        error: { code: 400, message: 'Unable to submit request because it has an empty text parameter.', status: 'INVALID_ARGUMENT' },
      },
    });
    const rejected = await rejectionOf(vertex.adapter.chat(REQUEST, GEMINI_TARGET, callOptions()));
    expect(rejected).toMatchObject({ kind: 'rejected', status: 400, retryable: false });
    expect((rejected as Error).message).toContain('empty text parameter');
  });
});

describe('vertex (publisher google): embeddings', () => {
  const fixture = useVertexTestAdapter('google');
  const target = { id: 'embed', upstreamModel: 'text-embedding-005', defaultMaxTokens: 0, dimensions: [256, 768] };

  it('posts predict with one instance per input and reports the summed token counts', async () => {
    const { upstream, vertex } = fixture;
    upstream.reply({
      type: 'json',
      body: {
        predictions: [
          { embeddings: { values: [0.1, 0.2], statistics: { truncated: false, token_count: 4 } } },
          { embeddings: { values: [0.3, 0.4], statistics: { truncated: false, token_count: 6 } } },
        ],
        metadata: { billableCharacterCount: 20 },
      },
    });
    const result = await vertex.adapter.embeddings(
      { model: 'embed', input: ['first text', 'second text'], dimensions: 256 },
      target,
      callOptions(),
    );
    expect(result.response.data).toEqual([
      { object: 'embedding', index: 0, embedding: [0.1, 0.2] },
      { object: 'embedding', index: 1, embedding: [0.3, 0.4] },
    ]);
    expect(result.usage).toEqual({ promptTokens: 10, completionTokens: 0 });
    expect(result.response.usage).toEqual({ prompt_tokens: 10, total_tokens: 10 });
    const [sent] = upstream.requests;
    expect(sent?.path).toBe(modelPath('google', 'text-embedding-005', 'predict'));
    expect(sent?.body).toEqual({
      instances: [{ content: 'first text' }, { content: 'second text' }],
      parameters: { outputDimensionality: 256 },
    });
  });

  it('refuses a different number of predictions than inputs as a bad response', async () => {
    const { upstream, vertex } = fixture;
    upstream.reply({ type: 'json', body: { predictions: [{ embeddings: { values: [0.1] } }] } });
    const error = await rejectionOf(vertex.adapter.embeddings({ model: 'embed', input: ['a', 'b'] }, target, callOptions()));
    expect(error).toMatchObject({ kind: 'bad_response' });
  });
});
