/**
 * The text of a ConverseStream `contentBlockDelta` event that carries plain text and nothing
 * else, read without `JSON.parse` (docs/performance.md, "Speed tricks in the code"): most events
 * of a stream are these, `{"contentBlockIndex":0,"delta":{"text":"…"}}`
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ContentBlockDeltaEvent.html),
 * which Bedrock's streams end with a padding member of random letters, `,"p":"abcd…"`, whose
 * length changes with every event.
 *
 * The payload must be exactly that text, its members in that order, the index a JSON integer
 * and the strings without escapes; the text is then the characters between its quotes, as
 * `JSON.parse` would read them. Anything else (escapes, reasoning, tool input, another order or
 * member) is null, and the caller parses the event.
 */
const START = '{"contentBlockIndex":';
const TEXT_MEMBER = ',"delta":{"text":"';
const PADDING_MEMBER = ',"p":"';
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const CLOSING_BRACE = 0x7d;
const ZERO = 0x30;
const NINE = 0x39;

export function plainTextDelta(payload: string): string | null {
  if (!payload.startsWith(START)) return null;
  const digitsStart = START.length;
  let position = digitsStart;
  while (position < payload.length && payload.charCodeAt(position) >= ZERO && payload.charCodeAt(position) <= NINE) position++;
  // JSON has no leading zeros; a longer number than an index can be is left to the parser.
  const digits = position - digitsStart;
  if (digits === 0 || digits > 9 || (digits > 1 && payload.charCodeAt(digitsStart) === ZERO)) return null;
  if (!payload.startsWith(TEXT_MEMBER, position)) return null;
  const textStart = position + TEXT_MEMBER.length;
  const textEnd = closingQuote(payload, textStart);
  if (textEnd === -1 || payload.charCodeAt(textEnd + 1) !== CLOSING_BRACE) return null;
  position = textEnd + 2;
  if (payload.startsWith(PADDING_MEMBER, position)) {
    const paddingEnd = closingQuote(payload, position + PADDING_MEMBER.length);
    if (paddingEnd === -1) return null;
    position = paddingEnd + 1;
  }
  if (position !== payload.length - 1 || payload.charCodeAt(position) !== CLOSING_BRACE) return null;
  return payload.slice(textStart, textEnd);
}

/** Where the string whose characters start at `start` ends (its closing quote), if they hold no escape or control character; else -1. */
function closingQuote(text: string, start: number): number {
  for (let position = start; position < text.length; position++) {
    const code = text.charCodeAt(position);
    if (code === QUOTE) return position;
    if (code === BACKSLASH || code < 0x20) return -1;
  }
  return -1;
}
