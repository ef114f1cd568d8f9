import { StringDecoder } from 'node:string_decoder';
import { withoutByteOrderMark } from '../byte-order-mark';

/**
 * A server-sent-events decoder following the WHATWG event-stream rules
 * (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation):
 * lines end in CRLF, LF or CR; `data` lines of one event are joined with "\n"; comments
 * (lines starting with ':') are skipped; an event is dispatched at a blank line. Bytes may be
 * split anywhere, even inside a multi-byte character or between CR and LF.
 */
export interface SseEvent {
  event: string | null;
  data: string;
  id: string | null;
}

/**
 * The events of a body, a read at a time: each array holds the events completed by one read
 * of the body (none are yielded empty). Decoding is synchronous; one await per read, however
 * many events the read carries: a fast upstream delivers a whole reply in a read or two.
 */
export async function* parseSseBatches(body: AsyncIterable<Uint8Array>): AsyncGenerator<SseEvent[]> {
  const decoder = new SseDecoder();
  for await (const bytes of body) {
    const events = decoder.decode(bytes);
    if (events.length > 0) yield events;
  }
  const last = decoder.end();
  if (last.length > 0) yield last;
}

/** The events of a body one by one (the same decoder, without a generator of batches in between). */
export async function* parseSse(body: AsyncIterable<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new SseDecoder();
  for await (const bytes of body) yield* decoder.decode(bytes);
  yield* decoder.end();
}

/** The decoder's state between reads: the text of an unfinished line and the event being built. */
export class SseDecoder {
  // Node's StringDecoder rather than TextDecoder: `decode(bytes, { stream: true })` costs ~7
  // times as much per read (its options are converted on every call). Both keep a character
  // split between reads for the next one and replace invalid bytes with U+FFFD.
  private readonly decoder = new StringDecoder('utf8');
  private readonly state = newEventState();
  private buffer = '';
  private pendingCr = false;
  /** The stream's first text is yet to come: a byte order mark there is dropped (as TextDecoder does, and as the WHATWG event-stream rules above say). */
  private atStart = true;

  /** The events that the bytes of one read complete. */
  decode(bytes: Uint8Array): SseEvent[] {
    const events: SseEvent[] = [];
    const state = this.state;
    let buffer = this.buffer + this.text(this.decoder.write(bytes));
    // Nothing new (an empty read): keep a pending CR for the LF that may come next.
    if (buffer.length === 0) return events;
    let start = 0;
    // A CR at the end of the previous chunk may pair with an LF at the start of this one.
    if (this.pendingCr && buffer.startsWith('\n')) start = 1;
    this.pendingCr = false;
    if (buffer.indexOf('\r', start) === -1) {
      // LF line ends only, as nearly every server sends them: find them with indexOf.
      for (let end = buffer.indexOf('\n', start); end !== -1; end = buffer.indexOf('\n', start)) {
        const event = processLine(buffer.slice(start, end), state);
        start = end + 1;
        if (event) events.push(event);
      }
      this.buffer = buffer.slice(start);
      return events;
    }
    for (let index = start; index < buffer.length; index++) {
      const character = buffer.charCodeAt(index);
      if (character !== 10 && character !== 13) continue;
      const line = buffer.slice(start, index);
      if (character === 13) {
        if (index + 1 < buffer.length) {
          if (buffer.charCodeAt(index + 1) === 10) index++;
        } else {
          this.pendingCr = true;
        }
      }
      start = index + 1;
      const event = processLine(line, state);
      if (event) events.push(event);
    }
    buffer = buffer.slice(start);
    this.buffer = buffer;
    return events;
  }

  /** Decoded text as the stream's text: without the byte order mark its first text may start with. */
  private text(decoded: string): string {
    if (!this.atStart || decoded.length === 0) return decoded;
    this.atStart = false;
    return withoutByteOrderMark(decoded);
  }

  /** The body ended: what is left. A final event without its blank line is dispatched (upstreams often end that way). */
  end(): SseEvent[] {
    const events: SseEvent[] = [];
    const rest = this.buffer + this.text(this.decoder.end());
    this.buffer = '';
    if (rest.length > 0) {
      const event = processLine(rest, this.state);
      if (event) events.push(event);
    }
    if (this.state.hasData) events.push(dispatch(this.state));
    return events;
  }
}

interface EventState {
  event: string | null;
  /** The data lines so far, joined with "\n" (the WHATWG rules' data buffer without its last LF). */
  data: string;
  id: string | null;
  hasData: boolean;
}

function newEventState(): EventState {
  return { event: null, data: '', id: null, hasData: false };
}

function processLine(line: string, state: EventState): SseEvent | null {
  if (line.length === 0) return state.hasData ? dispatch(state) : reset(state);
  if (line.charCodeAt(0) === 58 /* ':' */) return null;
  const colon = line.indexOf(':');
  const field = colon === -1 ? line : line.slice(0, colon);
  let value = colon === -1 ? '' : line.slice(colon + 1);
  if (value.charCodeAt(0) === 32) value = value.slice(1);
  switch (field) {
    case 'data':
      state.data = state.hasData ? `${state.data}\n${value}` : value;
      state.hasData = true;
      break;
    case 'event':
      state.event = value;
      break;
    case 'id':
      state.id = value;
      break;
    default:
      break;
  }
  return null;
}

function dispatch(state: EventState): SseEvent {
  const event: SseEvent = { event: state.event, data: state.data, id: state.id };
  reset(state);
  return event;
}

function reset(state: EventState): null {
  state.event = null;
  state.data = '';
  state.hasData = false;
  return null;
}
