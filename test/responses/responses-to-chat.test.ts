import { describe, expect, it } from 'vitest';
import { ResponsesRequestSchema } from '../../contract';
import { GatewayError } from '../../server/errors/gateway-error';
import { responsesToChat } from '../../server/responses/responses-to-chat';

const parse = (body: unknown) => ResponsesRequestSchema.parse(body);

function refusal(body: unknown, hosted: 'drop' | 'reject' = 'drop'): GatewayError {
  try {
    responsesToChat(parse(body), hosted);
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('responsesToChat', () => {
  it('a string input is one user message; settings map to their chat names', () => {
    const { request } = responsesToChat(
      parse({
        model: 'm',
        input: 'hi',
        max_output_tokens: 9,
        top_p: 0.5,
        text: { format: { type: 'json_object' } },
        user: 'u1',
        store: true,
        metadata: { a: 'b' },
      }),
      'drop',
    );
    expect(request).toEqual({
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
      top_p: 0.5,
      max_completion_tokens: 9,
      response_format: { type: 'json_object' },
      user: 'u1',
    });
  });

  it('messages of every role, images, and easy messages without a type', () => {
    const { request } = responsesToChat(
      parse({
        model: 'm',
        input: [
          { role: 'system', content: 'sys' },
          {
            type: 'message',
            role: 'developer',
            content: [
              { type: 'input_text', text: 'dev ' },
              { type: 'input_text', text: 'two' },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'input_text', text: 'look' },
              { type: 'input_image', image_url: 'data:image/png;base64,AA', detail: 'low' },
            ],
          },
          { role: 'assistant', content: [{ type: 'output_text', text: 'seen', annotations: [] }] },
        ],
      }),
      'drop',
    );
    expect(request.messages).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'system', content: 'dev two' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AA', detail: 'low' } },
        ],
      },
      { role: 'assistant', content: 'seen' },
    ]);
  });

  it('calls join the assistant message before them; outputs become tool messages; reasoning items are left out', () => {
    const { request } = responsesToChat(
      parse({
        model: 'm',
        input: [
          { role: 'user', content: 'go' },
          { type: 'reasoning', summary: [], encrypted_content: 'opaque' },
          { role: 'assistant', content: 'Running both.' },
          { type: 'function_call', call_id: 'c1', name: 'a', arguments: '{}' },
          { type: 'custom_tool_call', call_id: 'c2', name: 'patch', input: 'diff' },
          { type: 'function_call_output', call_id: 'c1', output: [{ type: 'input_text', text: 'done' }] },
          { type: 'custom_tool_call_output', call_id: 'c2', output: 'applied' },
        ],
      }),
      'drop',
    );
    expect(request.messages).toEqual([
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: 'Running both.',
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'a', arguments: '{}' } },
          { id: 'c2', type: 'function', function: { name: 'patch', arguments: '{"input":"diff"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'done' },
      { role: 'tool', tool_call_id: 'c2', content: 'applied' },
    ]);
  });

  it('tools: function and custom translate, hosted ones are dropped and named; tool_choice follows', () => {
    const translation = responsesToChat(
      parse({
        model: 'm',
        input: 'x',
        tools: [
          { type: 'function', name: 'f', parameters: { type: 'object' }, strict: false },
          { type: 'custom', name: 'c', description: 'free text', format: { type: 'grammar', syntax: 'lark', definition: 'start: /.+/' } },
          { type: 'web_search', external_web_access: false },
          { type: 'namespace', name: 'multi_agent', tools: [] },
        ],
        tool_choice: { type: 'custom', name: 'c' },
        parallel_tool_calls: true,
      }),
      'drop',
    );
    expect(translation.droppedTools).toEqual(['web_search', 'namespace']);
    expect([...translation.customTools]).toEqual(['c']);
    expect(translation.request.tools).toEqual([
      { type: 'function', function: { name: 'f', parameters: { type: 'object' }, strict: false } },
      { type: 'function', function: { name: 'c', description: 'free text', parameters: expect.objectContaining({ required: ['input'] }) } },
    ]);
    expect(translation.request.tool_choice).toEqual({ type: 'function', function: { name: 'c' } });
    expect(translation.request.parallel_tool_calls).toBe(true);
  });

  it('refusals name the parameter', () => {
    expect(refusal({ model: 'm', input: 'x', tools: [{ type: 'file_search' }] }, 'reject')).toMatchObject({
      status: 400,
      param: 'tools[0]',
    });
    expect(refusal({ model: 'm', input: [{ type: 'item_reference', id: 'i' }] })).toMatchObject({ status: 400, param: 'input[0]' });
    expect(refusal({ model: 'm', input: [{ type: 'function_call', name: 'f' }] })).toMatchObject({
      status: 400,
      type: 'invalid_request_error',
    });
    expect(refusal({ model: 'm', input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file_1' }] }] })).toMatchObject({
      param: 'input[0].content[0]',
    });
    expect(refusal({ model: 'm', input: [{ type: 'computer_call' }] })).toMatchObject({ param: 'input[0].type' });
    expect(refusal({ model: 'm', input: [] })).toMatchObject({ param: 'input' });
  });
});
