import { describe, expect, it } from 'vitest';
import { MessagesRequestSchema, type MessagesRequest } from '../../contract';
import { GatewayError } from '../../server/errors/gateway-error';
import { messagesReasoning, messagesToChat } from '../../server/messages/messages-to-chat';

const request = (fields: Record<string, unknown>): MessagesRequest =>
  MessagesRequestSchema.parse({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }], ...fields });

describe('messagesToChat', () => {
  it('joins the system prompt, text blocks and role: system turns into one leading system message', () => {
    const chat = messagesToChat(
      request({
        system: [
          { type: 'text', text: 'One.' },
          { type: 'text', text: 'Two.', cache_control: { type: 'ephemeral' } },
        ],
        messages: [
          { role: 'system', content: [{ type: 'text', text: 'Three.' }] },
          { role: 'user', content: 'hi' },
        ],
      }),
      false,
    );
    expect(chat.messages).toEqual([
      { role: 'system', content: 'One.\n\nTwo.\n\nThree.' },
      { role: 'user', content: 'hi' },
    ]);
  });

  it('puts tool results first as tool messages, with their images in the user turn that follows', () => {
    const chat = messagesToChat(
      request({
        messages: [
          { role: 'user', content: 'look' },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: 'hmm', signature: 's' },
              { type: 'text', text: 'Calling.' },
              { type: 'tool_use', id: 't1', name: 'shot', input: {} },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'and?' },
              {
                type: 'tool_result',
                tool_use_id: 't1',
                content: [
                  { type: 'text', text: 'a screenshot' },
                  { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } },
                ],
              },
              { type: 'tool_result', tool_use_id: 't2', is_error: true },
            ],
          },
        ],
      }),
      false,
    );
    expect(chat.messages).toEqual([
      { role: 'user', content: 'look' },
      { role: 'assistant', content: 'Calling.', tool_calls: [{ id: 't1', type: 'function', function: { name: 'shot', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 't1', content: 'a screenshot' },
      { role: 'tool', tool_call_id: 't2', content: 'Error' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'and?' },
          { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
        ],
      },
    ]);
  });

  it('maps tool_choice and disable_parallel_tool_use; leaves server tools out', () => {
    const tools = [
      { name: 'f', input_schema: { type: 'object' } },
      { type: 'web_search_20250305', name: 'web_search', max_uses: 3 },
    ];
    expect(
      messagesToChat(request({ tools, tool_choice: { type: 'tool', name: 'f', disable_parallel_tool_use: true } }), false),
    ).toMatchObject({
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
      tool_choice: { type: 'function', function: { name: 'f' } },
      parallel_tool_calls: false,
    });
    expect(messagesToChat(request({ tools, tool_choice: { type: 'none' } }), false).tool_choice).toBe('none');
    expect(messagesToChat(request({ tools, tool_choice: { type: 'auto' } }), false).tool_choice).toBe('auto');
    const onlyServer = messagesToChat(request({ tools: [tools[1]], tool_choice: { type: 'any' } }), false);
    expect(onlyServer.tools).toBeUndefined();
    expect(onlyServer.tool_choice).toBeUndefined();
  });

  it("keeps sampling settings, asks for usage when streaming, drops what chat has no place for (thinking goes as the call's reasoning)", () => {
    const chat = messagesToChat(
      request({
        temperature: 0.5,
        top_p: 0.9,
        top_k: 5,
        stop_sequences: ['x'],
        metadata: { user_id: 'u' },
        thinking: { type: 'enabled', budget_tokens: 2000 },
        output_config: { effort: 'low' },
      }),
      true,
    );
    expect(chat).toEqual({
      model: 'm',
      max_tokens: 10,
      temperature: 0.5,
      top_p: 0.9,
      stop: ['x'],
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'hi' }],
    });
  });

  it('maps thinking to an effort by budget and keeps the budget (docs/anthropic-messages.md, Thinking)', () => {
    const enabled = (budget: number) => messagesReasoning(request({ thinking: { type: 'enabled', budget_tokens: budget } }));
    expect(enabled(1024)).toEqual({ effort: 'low', budgetTokens: 1024 });
    expect(enabled(4096)).toEqual({ effort: 'medium', budgetTokens: 4096 });
    expect(enabled(16383)).toEqual({ effort: 'medium', budgetTokens: 16383 });
    expect(enabled(16384)).toEqual({ effort: 'high', budgetTokens: 16384 });
    expect(messagesReasoning(request({ thinking: { type: 'adaptive' } }))).toEqual({});
    expect(messagesReasoning(request({ thinking: { type: 'disabled' } }))).toBeUndefined();
    expect(messagesReasoning(request({}))).toBeUndefined();
  });

  it('refuses what it cannot translate with a 400 naming the field', () => {
    const tooMany = () => messagesToChat(request({ stop_sequences: ['a', 'b', 'c', 'd', 'e'] }), false);
    expect(tooMany).toThrow(GatewayError);
    expect(tooMany).toThrow(expect.objectContaining({ status: 400, param: 'stop_sequences' }));
    const file = () =>
      messagesToChat(
        request({ messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'file', file_id: 'f_1' } }] }] }),
        false,
      );
    expect(file).toThrow(expect.objectContaining({ status: 400, param: 'messages[0].content[0].source' }));
  });
});
