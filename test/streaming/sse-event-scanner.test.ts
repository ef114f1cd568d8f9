import { describe, expect, it } from 'vitest';
import { SseEventScanner } from '../../server/streaming/sse-event-scanner';

/** The events the scanner hands over for `names`, the text fed in pieces of `size` characters. */
function scanned(text: string, names: string[], size = text.length): [string | null, string][] {
  const seen: [string | null, string][] = [];
  const scanner = new SseEventScanner(names, (name, data) => seen.push([name, data]));
  for (let start = 0; start < text.length; start += size) scanner.scan(text.slice(start, start + size));
  scanner.end();
  return seen;
}

describe('SseEventScanner', () => {
  const stream =
    'event: ping\ndata: {"type":"ping"}\n\n' +
    'event: message_delta\ndata: {"a":1}\n\n' +
    ': a comment\n\n' +
    'event:message_stop\ndata:{"type":"message_stop"}\n\n';

  it('hands over only the named events, whatever the read boundaries', () => {
    const expected = [
      ['message_delta', '{"a":1}'],
      ['message_stop', '{"type":"message_stop"}'],
    ];
    for (const size of [1, 2, 3, 7, 1000]) expect(scanned(stream, ['message_delta', 'message_stop'], size)).toEqual(expected);
  });

  it('reads CRLF and CR line ends, a CRLF split between reads, and a byte order mark at the start', () => {
    const crlf = '\uFEFFevent: message_delta\r\ndata: {"a":\r\ndata: 2}\r\n\r\nevent: x\rdata: 1\r\r';
    for (const size of [1, 4, 1000])
      expect(scanned(crlf, ['message_delta', 'x'], size)).toEqual([
        ['message_delta', '{"a":\n2}'],
        ['x', '1'],
      ]);
  });

  it('reads events without a leading event line whole: named when the name comes later, null without one', () => {
    const text = 'data: {"b":1}\nevent: message_delta\n\ndata: {"type":"t"}\n\nid: 3\nevent: other\ndata: 0\n\n';
    expect(scanned(text, ['message_delta'])).toEqual([
      ['message_delta', '{"b":1}'],
      [null, '{"type":"t"}'],
    ]);
  });

  it('does not take an event whose name only starts like a wanted one, nor an unterminated last event', () => {
    expect(scanned('event: message_delta_x\ndata: 1\n\nevent: message_delta\ndata: 2', ['message_delta'])).toEqual([]);
  });
});
