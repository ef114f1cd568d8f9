import { describe, expect, it } from 'vitest';
import { MessageUsageReader } from '../../server/messages/message-usage-reader';
import { chatToMessage, toMessagesUsage, toolInput } from '../../server/messages/chat-to-message';
import { toMessagesErrorBody } from '../../server/errors/anthropic-error-body';
import { GatewayError, invalidRequest, rateLimited } from '../../server/errors/gateway-error';
import { SseEventScanner } from '../../server/streaming/sse-event-scanner';
import { encodeSseEvent, events } from '../helpers/mock-anthropic-upstream';

describe('MessageUsageReader', () => {
  it('reads input and cache counts from message_start and the final counts from message_delta, bytes split anywhere', () => {
    const stream = [
      events.messageStart(12, { cache_read_input_tokens: 100, cache_creation_input_tokens: 20 }),
      events.textStart(0),
      events.textDelta(0, 'hé'),
      events.blockStop(0),
      events.messageDelta('end_turn', 33),
      events.messageStop(),
    ]
      .map(encodeSseEvent)
      .join('');
    const reader = new MessageUsageReader('claude');
    const scanner = new SseEventScanner(reader.eventNames, (name, data) => reader.readEvent(name, data));
    for (let offset = 0; offset < stream.length; offset += 5) scanner.scan(stream.slice(offset, offset + 5));
    expect(reader.completed).toBe(true);
    expect(reader.error).toBeNull();
    // The cache parts of the prompt, priced apart (docs/pricing.md): no 1-hour breakdown sent, so every write is 5-minute.
    expect(reader.tokens()).toEqual({
      promptTokens: 132,
      completionTokens: 33,
      cachedTokens: 100,
      cacheWriteTokens: 20,
      cacheWrite1hTokens: 0,
    });
  });

  it('notes an error event and ignores garbage data', () => {
    const reader = new MessageUsageReader('claude');
    reader.readEvent('message_delta', '{not json');
    reader.readEvent('error', JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'busy' } }));
    expect(reader.completed).toBe(false);
    expect(reader.error?.status).toBe(502);
    expect(reader.tokens()).toBeNull();
  });

  it('reads a whole Message and refuses what is not one', () => {
    const reader = new MessageUsageReader('claude');
    expect(reader.readReply('[1,2]')).toBe(false);
    expect(reader.readReply(JSON.stringify({ type: 'message', usage: { input_tokens: 4, output_tokens: 2 } }))).toBe(true);
    expect(reader.tokens()).toEqual({ promptTokens: 4, completionTokens: 2 });
  });
});

describe('chatToMessage', () => {
  it('keeps arguments that are not a JSON object', () => {
    expect(toolInput('')).toEqual({});
    expect(toolInput('[1]')).toEqual({ arguments: '[1]' });
    expect(toolInput('{"a":1')).toEqual({ arguments: '{"a":1' });
  });

  it('answers an empty reply with no content block', () => {
    const message = chatToMessage(
      {
        id: 'c',
        object: 'chat.completion',
        created: 1,
        model: 'cat',
        choices: [{ index: 0, message: { role: 'assistant', content: '' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 1, completion_tokens: 0, total_tokens: 1 },
      },
      { promptTokens: 1, completionTokens: 0 },
      'msg_x',
    );
    expect(message).toMatchObject({ id: 'msg_x', model: 'cat', content: [], stop_reason: 'end_turn' });
  });
});

describe('toMessagesUsage', () => {
  it('counts cached and cache-written input apart from input_tokens', () => {
    expect(toMessagesUsage({ promptTokens: 10, completionTokens: 2 })).toEqual({
      input_tokens: 10,
      output_tokens: 2,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    });
    expect(
      toMessagesUsage({ promptTokens: 100, completionTokens: 5, cachedTokens: 60, cacheWriteTokens: 20, cacheWrite1hTokens: 10 }),
    ).toEqual({
      input_tokens: 10,
      output_tokens: 5,
      cache_creation_input_tokens: 30,
      cache_read_input_tokens: 60,
      cache_creation: { ephemeral_5m_input_tokens: 20, ephemeral_1h_input_tokens: 10 },
    });
  });
});

describe('toMessagesErrorBody', () => {
  it('gives each status the type Anthropic documents for it, naming the param in the message', () => {
    expect(toMessagesErrorBody(invalidRequest('invalid_value', 'Bad.', 'max_tokens'))).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'max_tokens: Bad.' },
    });
    expect(toMessagesErrorBody(rateLimited('Slow down.', { 'retry-after': '1' })).error.type).toBe('rate_limit_error');
    expect(toMessagesErrorBody(new GatewayError(502, 'upstream_error', 'upstream_unavailable', 'x')).error.type).toBe('api_error');
    expect(toMessagesErrorBody(new GatewayError(504, 'upstream_error', 'upstream_timeout', 'x')).error.type).toBe('timeout_error');
    expect(toMessagesErrorBody(new GatewayError(413, 'invalid_request_error', 'payload_too_large', 'x')).error.type).toBe(
      'request_too_large',
    );
  });
});
