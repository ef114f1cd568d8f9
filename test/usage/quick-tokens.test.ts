import { describe, expect, it } from 'vitest';
import { quickPromptTokens, quickTextTokens } from '../../server/usage/count-tokens';

describe('quick token estimate (rate-limit reservations)', () => {
  it.each([
    ['', 0],
    ['abcd', 1],
    ['abcdefghij', 3],
    // Not ASCII: a token per UTF-16 unit, ASCII by four.
    ['你好世界', 4],
    ['héllo', 2],
    ['😀 ok', 1 + 2],
  ])('%j is %i tokens', (text, tokens) => {
    expect(quickTextTokens(text)).toBe(tokens);
  });

  it('adds the messages and their overhead', () => {
    const request = {
      model: 'm',
      messages: [
        { role: 'system', content: 'x'.repeat(40) },
        { role: 'user', content: '你好' },
      ],
    };
    expect(quickPromptTokens(request as never)).toBe(3 + 4 + 10 + 4 + 2);
  });
});
