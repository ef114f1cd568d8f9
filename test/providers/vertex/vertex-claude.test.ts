import { describe, expect, it } from 'vitest';
import type { ChatCompletionRequest } from '../../../contract';
import { errorBody, messageBody, textStream } from '../../helpers/mock-anthropic-upstream';
import { callOptions, collect, rejectionOf } from '../harness';
import { CLAUDE_TARGET, modelPath, PROJECT, useVertexTestAdapter } from './harness';

/**
 * Claude on Vertex AI: the Anthropic adapter over `:rawPredict` / `:streamRawPredict`, the
 * Messages body without `model` and with `anthropic_version: vertex-2023-10-16`.
 */

const REQUEST: ChatCompletionRequest = { model: 'sonnet', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 100 };
const NO_HEADERS = { anthropicVersion: null, anthropicBeta: null };

describe('vertex (publisher anthropic): chat', () => {
  const fixture = useVertexTestAdapter('anthropic');

  it('posts rawPredict with the model in the path and the Vertex version in the body, and maps cache usage', async () => {
    const { upstream, vertex } = fixture;
    upstream.reply({
      type: 'json',
      body: messageBody([{ type: 'text', text: 'Hello.' }], 'end_turn', {
        input_tokens: 10,
        output_tokens: 5,
        cache_read_input_tokens: 200,
        cache_creation_input_tokens: 50,
      }),
    });
    const result = await vertex.adapter.chat(REQUEST, CLAUDE_TARGET, callOptions());
    expect(result.completion.choices[0]?.message.content).toBe('Hello.');
    expect(result.usage).toEqual({
      promptTokens: 260,
      completionTokens: 5,
      cachedTokens: 200,
      cacheWriteTokens: 50,
      cacheWrite1hTokens: 0,
    });
    const [sent] = upstream.requests;
    expect(sent?.path).toBe(modelPath('anthropic', 'claude-sonnet-4@20250514', 'rawPredict'));
    expect(sent?.headers.authorization).toBe(`Bearer ${upstream.issued[0]?.token}`);
    expect(sent?.headers['x-api-key']).toBeUndefined();
    expect(sent?.body).toEqual({
      anthropic_version: 'vertex-2023-10-16',
      max_tokens: 100,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
    });
  });

  it('streams through streamRawPredict', async () => {
    const { upstream, vertex } = fixture;
    upstream.reply({ type: 'sse', events: textStream(['Hel', 'lo']) });
    const stream = await vertex.adapter.chatStream(REQUEST, CLAUDE_TARGET, callOptions());
    const chunks = await collect(stream.chunks);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe('Hello');
    expect(stream.usage).toMatchObject({ promptTokens: 25, completionTokens: 15 });
    const [sent] = upstream.requests;
    expect(sent?.path).toBe(modelPath('anthropic', 'claude-sonnet-4@20250514', 'streamRawPredict'));
    expect(sent?.body).toMatchObject({ anthropic_version: 'vertex-2023-10-16', stream: true });
    expect(sent?.body).not.toHaveProperty('model');
  });

  it("maps Claude's own errors (Anthropic's shape) and Vertex's (Google's shape)", async () => {
    const { upstream, vertex } = fixture;
    upstream.reply({ type: 'json', status: 400, body: errorBody('invalid_request_error', 'max_tokens: must be at most 64000') });
    const rejected = await rejectionOf(vertex.adapter.chat(REQUEST, CLAUDE_TARGET, callOptions()));
    expect(rejected).toMatchObject({ kind: 'rejected', retryable: false });
    expect((rejected as Error).message).toContain('max_tokens: must be at most 64000 (invalid_request_error)');

    upstream.reply({
      type: 'json',
      status: 429,
      body: { error: { code: 429, message: 'Quota exceeded for online_prediction_tokens_per_minute.', status: 'RESOURCE_EXHAUSTED' } },
      headers: { 'retry-after': '3' },
    });
    const quota = await rejectionOf(vertex.adapter.chat(REQUEST, CLAUDE_TARGET, callOptions()));
    expect(quota).toMatchObject({ kind: 'unavailable', retryable: true, retryAfterMs: 3000 });

    upstream.reply({
      type: 'json',
      status: 404,
      body: {
        error: {
          code: 404,
          message: `Publisher Model \`projects/${PROJECT}/locations/us-east5/publishers/anthropic/models/claude-x\` not found.`,
          status: 'NOT_FOUND',
        },
      },
    });
    const missing = await rejectionOf(vertex.adapter.chat(REQUEST, CLAUDE_TARGET, callOptions()));
    expect((missing as Error).message).toContain('Publisher Model');
  });

  it('has no embeddings', async () => {
    const error = await rejectionOf(fixture.vertex.adapter.embeddings({ model: 'sonnet', input: 'x' }, CLAUDE_TARGET, callOptions()));
    expect(error).toMatchObject({ status: 400, code: 'unsupported_capability' });
  });
});

describe('vertex (publisher anthropic): /v1/messages passed through', () => {
  const fixture = useVertexTestAdapter('anthropic');

  it("sends the client's body without model, with anthropic_version in the body and the beta header carried", async () => {
    const { upstream, vertex } = fixture;
    const messages = vertex.adapter.messages;
    expect(messages).toBeDefined();
    upstream.reply({ type: 'json', body: messageBody([{ type: 'text', text: 'Hi' }], 'end_turn') });
    const body = {
      model: 'sonnet',
      max_tokens: 50,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi', cache_control: { type: 'ephemeral' } }] }],
      thinking: { type: 'enabled', budget_tokens: 1024 },
      unknown_field: { kept: true },
    };
    const response = await messages!.create(body, CLAUDE_TARGET, {
      ...callOptions(),
      anthropicVersion: '2023-06-01',
      anthropicBeta: 'context-1m-2025-08-07',
    });
    expect(response.status).toBe(200);
    expect(JSON.parse(await response.text())).toMatchObject({ type: 'message', content: [{ type: 'text', text: 'Hi' }] });
    const [sent] = upstream.requests;
    expect(sent?.path).toBe(modelPath('anthropic', 'claude-sonnet-4@20250514', 'rawPredict'));
    expect(sent?.headers['anthropic-beta']).toBe('context-1m-2025-08-07');
    const { model: _model, ...rest } = body;
    expect(sent?.body).toEqual({ ...rest, anthropic_version: 'vertex-2023-10-16' });
  });

  it('streams a stream: true body through streamRawPredict, unread', async () => {
    const { upstream, vertex } = fixture;
    upstream.reply({ type: 'sse', events: textStream(['Hi']) });
    const response = await vertex.adapter.messages!.create(
      { model: 'sonnet', max_tokens: 10, stream: true, messages: [{ role: 'user', content: 'Hi' }] },
      CLAUDE_TARGET,
      { ...callOptions(), ...NO_HEADERS },
    );
    expect(await response.text()).toContain('event: message_stop');
    expect(upstream.requests[0]?.path).toBe(modelPath('anthropic', 'claude-sonnet-4@20250514', 'streamRawPredict'));
  });

  it('counts tokens at the count-tokens resource, the model in the body', async () => {
    const { upstream, vertex } = fixture;
    upstream.reply({ type: 'json', body: { input_tokens: 42 } });
    const count = await vertex.adapter.messages!.countTokens(
      { model: 'sonnet', messages: [{ role: 'user', content: 'Hi' }] },
      CLAUDE_TARGET,
      { ...callOptions(), ...NO_HEADERS },
    );
    expect(count).toBe(42);
    const [sent] = upstream.requests;
    expect(sent?.path).toBe(modelPath('anthropic', 'count-tokens', 'rawPredict'));
    expect(sent?.body).toEqual({
      model: 'claude-sonnet-4@20250514',
      messages: [{ role: 'user', content: 'Hi' }],
      anthropic_version: 'vertex-2023-10-16',
    });
  });
});
