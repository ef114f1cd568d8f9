/**
 * Text decoded from UTF-8 without a leading byte order mark, as WHATWG's UTF-8 decode (and so
 * body-parser, undici's `text()` and TextDecoder) drops it: request bodies, upstream replies
 * and the start of an event stream.
 */
export function withoutByteOrderMark(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
