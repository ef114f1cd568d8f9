import { describe, expect, it } from 'vitest';
import { parseSse, type SseEvent } from '../../server/streaming/parse-sse';

/** Feeds `bytes` as the given pieces (cut at the given offsets), like a socket may deliver them. */
async function* pieces(bytes: Uint8Array, cuts: number[]): AsyncGenerator<Uint8Array> {
  let start = 0;
  for (const cut of [...cuts, bytes.length]) {
    yield bytes.slice(start, cut);
    start = cut;
  }
}

async function decode(bytes: Uint8Array, cuts: number[] = []): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  for await (const event of parseSse(pieces(bytes, cuts))) events.push(event);
  return events;
}

const encoder = new TextEncoder();
const event = (data: string, extra: Partial<SseEvent> = {}): SseEvent => ({ event: null, id: null, data, ...extra });

// Multi-byte characters (2, 3 and 4 bytes in UTF-8), CRLF, a lone CR, comments, a multi-line event.
const STREAM =
  ': ping\r\n' +
  'data: {"content":"héllo 世界 😀"}\r\n\r\n' +
  'event: message\rid: 7\rdata: first\rdata: second\r\r' +
  'data:no-space\n\n' +
  ':comment only\n\n' +
  'data: [DONE]\n\n';
const EXPECTED = [
  event('{"content":"héllo 世界 😀"}'),
  event('first\nsecond', { event: 'message', id: '7' }),
  // The last event id stays until another `id:` line (WHATWG "last event ID buffer").
  event('no-space', { id: '7' }),
  event('[DONE]', { id: '7' }),
];

describe('parseSse', () => {
  it('drops a byte order mark at the start of the stream, also split across reads, and only there', async () => {
    const text = '\ufeffdata: one\n\ndata: \ufefftwo\n\n';
    const bytes = encoder.encode(text);
    for (const cuts of [[], [1], [2], [3], [4]]) {
      expect(await decode(bytes, cuts)).toEqual([event('one'), event('\ufefftwo')]);
    }
    // A stream that is nothing but a byte order mark and an unterminated event.
    expect(await decode(encoder.encode('\ufeffdata: last'), [2])).toEqual([event('last')]);
  });

  it('decodes LF, CRLF and CR line ends, comments and multi-line data', async () => {
    expect(await decode(encoder.encode(STREAM))).toEqual(EXPECTED);
  });

  it('gives the same events however the bytes are split in two', async () => {
    const bytes = encoder.encode(STREAM);
    for (let cut = 0; cut <= bytes.length; cut++) {
      expect(await decode(bytes, [cut]), `cut at ${cut}`).toEqual(EXPECTED);
    }
  });

  it('gives the same events one byte at a time (inside multi-byte characters, between CR and LF)', async () => {
    const bytes = encoder.encode(STREAM);
    expect(
      await decode(
        bytes,
        Array.from({ length: bytes.length - 1 }, (_, index) => index + 1),
      ),
    ).toEqual(EXPECTED);
  });

  it('splits between CR and LF without seeing a blank line', async () => {
    const bytes = encoder.encode('data: a\r\ndata: b\r\n\r\n');
    const crAt = bytes.indexOf(13) + 1;
    expect(await decode(bytes, [crAt])).toEqual([event('a\nb')]);
    // An empty piece between the CR and the LF changes nothing.
    expect(await decode(bytes, [crAt, crAt])).toEqual([event('a\nb')]);
  });

  it('dispatches a last event without its blank line', async () => {
    expect(await decode(encoder.encode('data: one\n\ndata: two'))).toEqual([event('one'), event('two')]);
    expect(await decode(encoder.encode('data: one\n\ndata: two\r'))).toEqual([event('one'), event('two')]);
  });

  it('ignores events without data, unknown fields and a byte-order mark', async () => {
    expect(await decode(encoder.encode('\uFEFFevent: ping\n\nretry: 10\nfoo: bar\ndata: x\n\n'))).toEqual([event('x')]);
  });

  it('keeps an empty data line as an empty event', async () => {
    expect(await decode(encoder.encode('data:\n\n'))).toEqual([event('')]);
  });
});
