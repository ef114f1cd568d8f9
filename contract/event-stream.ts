/**
 * The typed client's reader of the gateway's own server-sent events (docs/chat-and-streaming.md).
 * It runs in browsers and Node without Node's modules, so it does not share the server's
 * decoder (server/streaming/parse-sse.ts, written for upstreams' bytes on Node): it reads
 * what the gateway writes — `event:` and `data:` lines, LF or CRLF, events ended by a blank line.
 */
export interface StreamEvent {
  event: string | null;
  data: string;
}

/** The events of a response body, in order; the text is decoded as UTF-8 across reads. */
export async function* readEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<StreamEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let event: string | null = null;
  let data: string[] = [];
  let finished = false;
  try {
    while (true) {
      const { done, value } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      // A CR may be the first half of a CRLF split between reads: keep it for the next read.
      const lines = buffer.split(/\r\n|\n|\r(?!$)/);
      buffer = done ? '' : (lines.pop() ?? '');
      if (done && lines.at(-1) !== '') lines.push('');
      for (const line of lines) {
        if (line === '') {
          if (data.length > 0) yield { event, data: data.join('\n') };
          event = null;
          data = [];
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'data') data.push(value);
        else if (field === 'event') event = value;
      }
      if (done) break;
    }
    finished = true;
  } finally {
    // The consumer stopped early (break, throw): stop the download too.
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
