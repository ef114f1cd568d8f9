import { describe, expect, it } from 'vitest';
import { chatChunk, chatStreamReply, chatUsageChunk, type SseStep } from '../helpers/mock-openai-upstream';
import { apiErrorOf, captureLogger, rawPost, usageFor, waitFor } from './helpers';
import { RESPONSES_PATH_KEYS, responsesPathConfig, UPSTREAM_MODEL, useResponsesE2e, WEATHER } from './responses-setup';

/**
 * POST /v1/responses end to end with the official `openai` client (responses.create,
 * responses.stream, a function-call round trip), translated to a chat upstream; and what the
 * route refuses on either path, being stateless. Passed through to an upstream that serves the
 * Responses API: responses-pass-through.test.ts.
 */
const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => chatChunk(delta, finishReason, UPSTREAM_MODEL);
const usageChunk = (prompt: number, completion: number): SseStep => ({ data: chatUsageChunk({ prompt, completion }, UPSTREAM_MODEL) });

function completion(message: Record<string, unknown>, finishReason = 'stop') {
  return {
    id: 'chatcmpl-upstream-1',
    object: 'chat.completion',
    created: 1_767_225_600,
    model: UPSTREAM_MODEL,
    choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finishReason }],
    usage: { prompt_tokens: 21, completion_tokens: 5, total_tokens: 26 },
  };
}

/** The chat upstream's JSON reply calling one function tool. */
function toolCallReply(id: string, name: string, args: string) {
  return {
    type: 'json' as const,
    body: completion({ content: null, tool_calls: [{ id, type: 'function', function: { name, arguments: args } }] }, 'tool_calls'),
  };
}

describe('e2e: POST /v1/responses', () => {
  const logs = captureLogger();
  const responses = useResponsesE2e(responsesPathConfig, { env: RESPONSES_PATH_KEYS, logger: logs.logger });

  describe('translated to a chat upstream', () => {
    it('responses.create: instructions, developer messages and settings become a chat request; the reply a response', async () => {
      const { chat, e2e } = responses;
      chat.reply({ type: 'json', body: completion({ content: 'Hi there!' }) });
      const { data, response } = await e2e.client.responses
        .create({
          model: 'chat-model',
          instructions: 'Be brief.',
          input: [
            { role: 'developer', content: 'You are a test.' },
            { role: 'user', content: [{ type: 'input_text', text: 'Say hi' }] },
          ],
          max_output_tokens: 100,
          temperature: 0.5,
          reasoning: { effort: 'low' },
          text: { format: { type: 'json_schema', name: 'greeting', schema: { type: 'object' }, strict: true } },
          store: true,
        })
        .withResponse();
      expect(data.output_text).toBe('Hi there!');
      expect(data).toMatchObject({ object: 'response', status: 'completed', model: 'chat-model', store: false });
      expect(data.usage).toEqual({
        input_tokens: 21,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: 5,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 26,
      });
      expect(chat.requests[0]?.path).toBe('/v1/chat/completions');
      expect(chat.requests[0]?.body).toEqual({
        model: UPSTREAM_MODEL,
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'system', content: 'You are a test.' },
          { role: 'user', content: [{ type: 'text', text: 'Say hi' }] },
        ],
        temperature: 0.5,
        max_completion_tokens: 100,
        response_format: { type: 'json_schema', json_schema: { name: 'greeting', schema: { type: 'object' }, strict: true } },
        reasoning_effort: 'low',
      });
      const usage = await usageFor(e2e, response.headers.get('x-request-id'));
      expect(usage).toMatchObject({
        model: 'chat-model',
        promptTokens: 21,
        completionTokens: 5,
        estimated: false,
        status: 200,
        stream: false,
      });
    });

    it('responses.stream: the documented events in order, with sequence numbers, and the final response', async () => {
      const { chat, e2e } = responses;
      chat.reply(chatStreamReply(['Hel', 'lo!'], { prompt: 13, completion: 4 }, UPSTREAM_MODEL));
      const stream = e2e.client.responses.stream({ model: 'chat-model', input: 'Say hello' });
      const types: string[] = [];
      const sequence: number[] = [];
      let deltas = '';
      for await (const event of stream) {
        types.push(event.type);
        sequence.push(event.sequence_number);
        if (event.type === 'response.output_text.delta') deltas += event.delta;
      }
      const final = await stream.finalResponse();
      expect(types).toEqual([
        'response.created',
        'response.in_progress',
        'response.output_item.added',
        'response.content_part.added',
        'response.output_text.delta',
        'response.output_text.delta',
        'response.output_text.done',
        'response.content_part.done',
        'response.output_item.done',
        'response.completed',
      ]);
      expect(sequence).toEqual(types.map((_, index) => index));
      expect(deltas).toBe('Hello!');
      // The stream helper's final response has no `output_text` convenience field: read the item.
      expect(final.output).toEqual([
        expect.objectContaining({
          type: 'message',
          role: 'assistant',
          content: [expect.objectContaining({ type: 'output_text', text: 'Hello!' })],
        }),
      ]);
      expect(final.status).toBe('completed');
      expect(final.usage).toMatchObject({ input_tokens: 13, output_tokens: 4, total_tokens: 17 });
      expect(chat.requests[0]?.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
      const event = await usageFor(e2e, e2e.usage.events.at(-1)?.requestId);
      expect(event).toMatchObject({ promptTokens: 13, completionTokens: 4, stream: true, status: 200 });
    });

    it('a function-call round trip: function_call out, function_call_output back as a tool message', async () => {
      const { chat, e2e } = responses;
      chat.reply(toolCallReply('call_1', 'get_weather', '{"city":"Paris"}'));
      const first = await e2e.client.responses.create({
        model: 'chat-model',
        input: 'Weather in Paris?',
        tools: [WEATHER],
        tool_choice: 'auto',
        parallel_tool_calls: false,
      });
      const call = first.output.find((item) => item.type === 'function_call');
      expect(call).toMatchObject({
        type: 'function_call',
        call_id: 'call_1',
        name: 'get_weather',
        arguments: '{"city":"Paris"}',
        status: 'completed',
      });
      expect(chat.requests[0]?.body).toMatchObject({
        tools: [
          {
            type: 'function',
            function: { name: 'get_weather', description: WEATHER.description, parameters: WEATHER.parameters, strict: false },
          },
        ],
        tool_choice: 'auto',
        parallel_tool_calls: false,
      });

      chat.reply({ type: 'json', body: completion({ content: 'It is sunny.' }) });
      const second = await e2e.client.responses.create({
        model: 'chat-model',
        tools: [WEATHER],
        input: [
          { role: 'user', content: 'Weather in Paris?' },
          ...(call ? [call] : []),
          { type: 'function_call_output', call_id: 'call_1', output: '{"sky":"sunny"}' },
        ],
      });
      expect(second.output_text).toBe('It is sunny.');
      expect((chat.requests[1]?.body as { messages: unknown[] }).messages).toEqual([
        { role: 'user', content: 'Weather in Paris?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '{"sky":"sunny"}' },
      ]);
    });

    it('streams tool calls: arguments deltas, then .done with the whole arguments', async () => {
      const { chat, e2e } = responses;
      chat.reply({
        type: 'sse',
        events: [
          {
            data: chunk({
              role: 'assistant',
              tool_calls: [{ index: 0, id: 'call_9', type: 'function', function: { name: 'get_weather', arguments: '' } }],
            }),
          },
          { data: chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }) },
          { data: chunk({ tool_calls: [{ index: 0, function: { arguments: '"Oslo"}' } }] }) },
          { data: chunk({}, 'tool_calls') },
          usageChunk(30, 9),
        ],
      });
      const stream = e2e.client.responses.stream({ model: 'chat-model', input: 'Weather in Oslo?', tools: [WEATHER] });
      const types: string[] = [];
      for await (const event of stream) types.push(event.type);
      const final = await stream.finalResponse();
      expect(types.filter((type) => type.startsWith('response.function_call_arguments'))).toEqual([
        'response.function_call_arguments.delta',
        'response.function_call_arguments.delta',
        'response.function_call_arguments.done',
      ]);
      expect(final.output).toEqual([
        expect.objectContaining({ type: 'function_call', call_id: 'call_9', name: 'get_weather', arguments: '{"city":"Oslo"}' }),
      ]);
    });

    it('custom tools become one-string function tools; their calls come back as custom_tool_call items', async () => {
      const { chat, e2e } = responses;
      chat.reply(toolCallReply('call_p', 'apply_patch', '{"input":"*** Begin Patch"}'));
      const reply = await e2e.client.responses.create({
        model: 'chat-model',
        input: 'Patch it',
        tools: [{ type: 'custom', name: 'apply_patch', description: 'Apply a patch.' }],
      });
      expect(reply.output[0]).toMatchObject({ type: 'custom_tool_call', call_id: 'call_p', name: 'apply_patch', input: '*** Begin Patch' });
      expect(chat.requests[0]?.body).toMatchObject({
        tools: [
          {
            type: 'function',
            function: { name: 'apply_patch', description: 'Apply a patch.', parameters: { type: 'object', required: ['input'] } },
          },
        ],
      });
    });

    it('hosted tools are dropped and named in x-gateway-dropped-tools (Codex sends web_search and namespace)', async () => {
      const { chat, e2e } = responses;
      chat.reply({ type: 'json', body: completion({ content: 'ok' }) });
      const reply = await rawPost(e2e, '/v1/responses', {
        model: 'chat-model',
        input: 'hi',
        tools: [WEATHER, { type: 'web_search' }, { type: 'namespace', name: 'agents', tools: [] }],
      });
      expect(reply.status).toBe(200);
      expect(reply.headers.get('x-gateway-dropped-tools')).toBe('web_search, namespace');
      expect((chat.requests[0]?.body as { tools: unknown[] }).tools).toHaveLength(1);
      const requestId = reply.headers.get('x-request-id') ?? '';
      const line = await waitFor(
        () =>
          logs
            .text()
            .split('\n')
            .find((entry) => entry.includes(requestId) && entry.includes('"msg":"request"')),
        'the access log line',
      );
      expect(JSON.parse(line)).toMatchObject({ route: '/v1/responses', status: 200, droppedTools: 'web_search, namespace' });
    });

    it('with responses_hosted_tools: reject, a hosted tool is a 400 naming it', async () => {
      const { chat, e2e } = responses;
      const error = await apiErrorOf(
        e2e.client.responses.create({ model: 'strict-model', input: 'hi', tools: [WEATHER, { type: 'web_search' }] }),
      );
      expect(error.status).toBe(400);
      expect(error.error).toMatchObject({ type: 'invalid_request_error', param: 'tools[1]' });
      expect(chat.requests).toHaveLength(0);
    });
  });

  describe('stateless', () => {
    it('previous_response_id and item_reference are 400 invalid_request_error naming the parameter', async () => {
      const { chat, native, e2e } = responses;
      const previous = await apiErrorOf(
        e2e.client.responses.create({ model: 'chat-model', input: 'hi', previous_response_id: 'resp_123' }),
      );
      expect(previous.status).toBe(400);
      expect(previous.error).toMatchObject({ type: 'invalid_request_error', param: 'previous_response_id' });
      const reference = await apiErrorOf(
        e2e.client.responses.create({ model: 'native-model', input: [{ type: 'item_reference', id: 'msg_1' }] }),
      );
      expect(reference.status).toBe(400);
      expect(reference.error).toMatchObject({ type: 'invalid_request_error', param: 'input[0]' });
      expect(chat.requests.length + native.requests.length).toBe(0);
    });

    it('bad input is a 400 in the error shape, never a 500', async () => {
      const { e2e } = responses;
      for (const body of [
        { model: 'chat-model' },
        { model: 'chat-model', input: [{ type: 'function_call' }] },
        { model: 'chat-model', input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'f' }] }] },
        { model: 'chat-model', input: [] },
      ]) {
        const reply = await rawPost(e2e, '/v1/responses', body);
        expect(reply.status).toBe(400);
        expect(((await reply.json()) as { error: { type: string } }).error.type).toBe('invalid_request_error');
      }
      const missing = await rawPost(e2e, '/v1/responses', { model: 'no-such-model', input: 'hi' });
      expect(missing.status).toBe(404);
    });
  });
});
