import { describe, expect, it } from 'vitest';
import { textResponse, textResponseStream } from '../helpers/mock-openai-responses';
import { apiErrorOf, rawPost, usageFor } from './helpers';
import { RESPONSES_PATH_KEYS, responsesPathConfig, UPSTREAM_MODEL, useResponsesE2e, WEATHER } from './responses-setup';

/**
 * POST /v1/responses end to end with the official `openai` client, passed through to an upstream
 * that serves the Responses API (`responses_api: true`). Translated to a chat upstream:
 * responses-path.test.ts.
 */
describe('e2e: POST /v1/responses', () => {
  const responses = useResponsesE2e(responsesPathConfig, { env: RESPONSES_PATH_KEYS });

  describe('passed through to a Responses upstream (responses_api: true)', () => {
    it('responses.create: the body as it came with the model replaced; the reply as the upstream sent it, metered', async () => {
      const { native, e2e } = responses;
      native.reply({ type: 'json', body: textResponse(UPSTREAM_MODEL, 'Native hi', { input: 40, output: 6, cached: 32, reasoning: 2 }) });
      const body = {
        model: 'native-model',
        input: [
          { role: 'developer', content: 'Be terse.' },
          { role: 'user', content: 'hi' },
        ],
        tools: [{ type: 'web_search' }],
        store: false,
        include: ['reasoning.encrypted_content'],
        prompt_cache_key: 'thread-1',
        reasoning: { summary: 'auto' },
        client_metadata: { originator: 'test' },
      };
      const reply = await rawPost(e2e, '/v1/responses', body);
      expect(reply.status).toBe(200);
      expect(reply.headers.get('x-gateway-dropped-tools')).toBeNull();
      expect(await reply.json()).toEqual(textResponse(UPSTREAM_MODEL, 'Native hi', { input: 40, output: 6, cached: 32, reasoning: 2 }));
      expect(native.requests[0]?.path).toBe('/v1/responses');
      expect(native.requests[0]?.headers.authorization).toBe('Bearer sk-native-upstream');
      expect(native.requests[0]?.body).toEqual({ ...body, model: UPSTREAM_MODEL });
      const usage = await usageFor(e2e, reply.headers.get('x-request-id'));
      expect(usage).toMatchObject({ model: 'native-model', promptTokens: 40, completionTokens: 6, estimated: false });
    });

    it('responses.stream: the upstream events reach the SDK unchanged; usage from response.completed', async () => {
      const { native, e2e } = responses;
      native.reply(textResponseStream(UPSTREAM_MODEL, ['Str', 'eamed'], { input: 12, output: 3 }));
      const stream = e2e.client.responses.stream({ model: 'native-model', input: 'hi' });
      const types: string[] = [];
      for await (const event of stream) types.push(event.type);
      const final = await stream.finalResponse();
      expect(final.output).toEqual([
        expect.objectContaining({ type: 'message', content: [expect.objectContaining({ text: 'Streamed' })] }),
      ]);
      expect(types[0]).toBe('response.created');
      expect(types.at(-1)).toBe('response.completed');
      expect(native.requests[0]?.body).toMatchObject({ model: UPSTREAM_MODEL, stream: true });
      const event = await usageFor(e2e, e2e.usage.events.at(-1)?.requestId);
      expect(event).toMatchObject({ model: 'native-model', promptTokens: 12, completionTokens: 3, stream: true, status: 200 });
    });

    it('a function-call round trip: the function_call item and the function_call_output go through as they are', async () => {
      const { native, e2e } = responses;
      const call = {
        type: 'function_call',
        id: 'fc_up_1',
        call_id: 'call_up_1',
        name: 'get_weather',
        arguments: '{"city":"Rome"}',
        status: 'completed',
      };
      native.reply({ type: 'json', body: { ...textResponse(UPSTREAM_MODEL, '', { input: 30, output: 8 }), output: [call] } });
      const first = await e2e.client.responses.create({ model: 'native-model', input: 'Weather in Rome?', tools: [WEATHER] });
      expect(first.output).toEqual([call]);
      native.reply({ type: 'json', body: textResponse(UPSTREAM_MODEL, 'Sunny in Rome.', { input: 50, output: 4 }) });
      const input = [
        { role: 'user' as const, content: 'Weather in Rome?' },
        ...first.output,
        { type: 'function_call_output' as const, call_id: 'call_up_1', output: '{"sky":"clear"}' },
      ];
      const second = await e2e.client.responses.create({ model: 'native-model', input, tools: [WEATHER] });
      expect(second.output_text).toBe('Sunny in Rome.');
      expect((native.requests[1]?.body as { input: unknown }).input).toEqual(input);
    });

    it('what only the upstream understands (input_file parts, other item types) goes through, not refused', async () => {
      const { native, e2e } = responses;
      native.reply({ type: 'json', body: textResponse(UPSTREAM_MODEL, 'Read it.', { input: 300, output: 3 }) });
      const input = [
        {
          role: 'user',
          content: [
            { type: 'input_file', file_id: 'file_abc' },
            { type: 'input_text', text: 'Summarize.' },
          ],
        },
        { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'x' } },
      ];
      const reply = await rawPost(e2e, '/v1/responses', { model: 'native-model', input });
      expect(reply.status).toBe(200);
      expect((native.requests[0]?.body as { input: unknown }).input).toEqual(input);
    });

    it('an upstream error is the gateway error shape (retried first)', async () => {
      const { native, e2e } = responses;
      const failure = {
        type: 'json' as const,
        status: 500,
        body: { error: { message: 'boom', type: 'server_error', param: null, code: null } },
      };
      native.reply(failure, failure);
      const error = await apiErrorOf(e2e.client.responses.create({ model: 'native-model', input: 'hi' }));
      expect(error.status).toBe(502);
      expect(native.requests).toHaveLength(2);
    });
  });
});
