import { encodeSseEventJson } from '../streaming/encode-sse';

/**
 * Responses stream events (docs/openai-responses.md), numbered in the order they are written, as
 * SSE named events written by streaming/encode-sse.ts. Each event's JSON is
 * `{"type":…,"sequence_number":…` followed by its other members, byte for byte what
 * JSON.stringify would write for the event object with those keys in that order. The members an
 * item's delta events share are serialized once per item (`members`), so a delta costs one
 * JSON.stringify of its text.
 */
export class ResponseEventEncoder {
  private sequence = 0;

  /** The JSON members of `fields` after a first one: `,"a":1,"b":2` ('' when none). */
  members(fields: Record<string, unknown>): string {
    const json = JSON.stringify(fields);
    return json.length > 2 ? `,${json.slice(1, -1)}` : '';
  }

  /** One event: its type and sequence number, then `members` (from `members()`). */
  encode(type: string, members: string): string {
    return encodeSseEventJson(type, `${jsonHead(type)}${this.sequence++}${members}}`);
  }

  /** A delta event: its type and sequence number, `before`, `"delta":<text>`, then `after`. */
  delta(type: string, before: string, text: string, after: string): string {
    return encodeSseEventJson(type, `${jsonHead(type)}${this.sequence++}${before},"delta":${JSON.stringify(text)}${after}}`);
  }
}

/** An event's JSON up to its sequence number's value (`{"type":<type>,"sequence_number":`), made once per type. */
function jsonHead(type: string): string {
  let head = JSON_HEADS.get(type);
  if (head === undefined) {
    head = `{"type":${JSON.stringify(type)},"sequence_number":`;
    if (JSON_HEADS.size < 64) JSON_HEADS.set(type, head);
  }
  return head;
}

const JSON_HEADS = new Map<string, string>();
