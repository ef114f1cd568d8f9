/**
 * Picks the events a reader needs out of an event stream's text, as it passes, without
 * splitting the others into lines (docs/architecture.md, "Request path", pass-through): an event whose
 * `event:` line comes first and names none of `names` is skipped with one `indexOf` for its
 * end. An event named in `names`, or one without a leading `event:` line, is read whole by the
 * WHATWG event-stream rules (https://html.spec.whatwg.org/multipage/server-sent-events.html):
 * `data` lines joined with "\n", comments skipped, one space after the colon dropped. CR and
 * CRLF line ends become LF first (a CR at the end of a read waits for the next one).
 */
export class SseEventScanner {
  private carry = '';
  private atStart = true;

  /**
   * `onEvent` gets the events named in `names`, and those without an `event:` line with
   * `name` null (their type is in their data on some upstreams).
   */
  constructor(
    private readonly names: readonly string[],
    private readonly onEvent: (name: string | null, data: string) => void,
  ) {}

  /** The text of one read. */
  scan(text: string): void {
    let buffer = this.carry + text;
    if (this.atStart && buffer.length > 0) {
      this.atStart = false;
      if (buffer.charCodeAt(0) === 0xfeff) buffer = buffer.slice(1);
    }
    if (buffer.includes('\r')) {
      // A CR closing the read may be the first half of a CRLF.
      const held = buffer.endsWith('\r') ? '\r' : '';
      buffer = buffer.slice(0, buffer.length - held.length).replace(/\r\n?/g, '\n') + held;
    }
    let position = 0;
    for (;;) {
      const end = buffer.indexOf('\n\n', position);
      if (end === -1) break;
      if (end > position) this.event(buffer, position, end);
      position = end + 2;
    }
    this.carry = position === 0 ? buffer : buffer.slice(position);
  }

  /** The end of the stream: an unterminated last event is not dispatched (as the WHATWG event-stream rules above say). */
  end(): void {
    // A CR held back at the end of the last read is a line end after all.
    if (this.carry.endsWith('\r')) {
      this.carry = this.carry.slice(0, -1);
      this.scan('\n');
    }
    this.carry = '';
  }

  private event(buffer: string, start: number, end: number): void {
    if (buffer.startsWith('event:', start)) {
      let nameStart = start + 6;
      if (buffer.charCodeAt(nameStart) === 32) nameStart += 1;
      const lineEnd = buffer.indexOf('\n', nameStart);
      const nameEnd = lineEnd === -1 || lineEnd > end ? end : lineEnd;
      if (!this.isWanted(buffer, nameStart, nameEnd)) return;
    }
    this.readWhole(buffer.slice(start, end));
  }

  private isWanted(buffer: string, start: number, end: number): boolean {
    for (const name of this.names) if (end - start === name.length && buffer.startsWith(name, start)) return true;
    return false;
  }

  private readWhole(block: string): void {
    let name: string | null = null;
    let data: string | null = null;
    for (const line of block.split('\n')) {
      if (line.length === 0 || line.charCodeAt(0) === 58 /* ':' */) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      let value = colon === -1 ? '' : line.slice(colon + 1);
      if (value.charCodeAt(0) === 32) value = value.slice(1);
      if (field === 'event') name = value;
      else if (field === 'data') data = data === null ? value : `${data}\n${value}`;
    }
    if (data === null) return;
    if (name === null || name === '') this.onEvent(null, data);
    else if (this.names.includes(name)) this.onEvent(name, data);
  }
}
