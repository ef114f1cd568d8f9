/**
 * Splits the text of one read at the start of its last event: the events before it, and the
 * last one (with what follows it). A stream's final event is held this way until its usage is
 * durable (docs/usage-durability.md) while the events read with it go out at once. When the
 * last event began in an earlier read, all of the text is the last event's.
 */
export function splitBeforeLastEvent(text: string): [before: string, last: string] {
  let end = text.length;
  while (end > 0 && (text[end - 1] === '\n' || text[end - 1] === '\r')) end -= 1;
  const lf = text.lastIndexOf('\n\n', end - 1);
  const crlf = text.lastIndexOf('\r\n\r\n', end - 1);
  const cut = Math.max(lf === -1 ? 0 : lf + 2, crlf === -1 ? 0 : crlf + 4);
  return [text.slice(0, cut), text.slice(cut)];
}
