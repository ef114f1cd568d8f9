import { EventStreamCodec } from '@smithy/core/event-streams';
import { fromUtf8, toUtf8 } from '@smithy/core/serde';
import type { Message } from '@smithy/types';
import type { UpstreamError } from '../../errors/gateway-error';
import { badResponse } from '../upstream-errors';

/**
 * The `application/vnd.amazon.eventstream` framing of Bedrock's streams
 * (https://docs.aws.amazon.com/AmazonS3/latest/API/RESTSelectObjectAppendix.html, "Prelude"):
 * each message is a 4-byte big-endian total length, a 4-byte headers length, a CRC of those,
 * the headers, the payload and a CRC of the whole. AWS's codec (@smithy/core's event-streams)
 * checks and decodes one whole message; this file cuts the body into whole messages, across
 * reads that split them anywhere.
 */

/** One decoded message: its `:message-type`, `:event-type` or `:exception-type`, and its payload as text. */
export interface EventStreamMessage {
  messageType: string;
  /** `:event-type` of an event, `:exception-type` of an exception, `:error-code` of an error. */
  type: string;
  payload: string;
}

/** Smallest message: the 12-byte prelude and the 4-byte message CRC. */
const MIN_MESSAGE_BYTES = 16;
/** Largest message accepted, well above any Bedrock event: guards memory against a corrupt length. */
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

const codec = new EventStreamCodec(toUtf8, fromUtf8);

/** The body's messages, grouped by upstream read; throws an UpstreamError on a damaged or cut-off stream. */
export async function* decodeEventStream(body: AsyncIterable<Uint8Array>, provider: string): AsyncGenerator<EventStreamMessage[]> {
  let pending: Uint8Array = new Uint8Array(0);
  for await (const bytes of body) {
    const buffer = pending.length === 0 ? bytes : concat(pending, bytes);
    const messages: EventStreamMessage[] = [];
    let offset = 0;
    while (buffer.length - offset >= 4) {
      const total = new DataView(buffer.buffer, buffer.byteOffset + offset, 4).getUint32(0, false);
      if (total < MIN_MESSAGE_BYTES || total > MAX_MESSAGE_BYTES) throw damaged(provider);
      if (buffer.length - offset < total) break;
      messages.push(decodeMessage(buffer.subarray(offset, offset + total), provider));
      offset += total;
    }
    // A copy, so that the read's buffer is not kept alive by a small remainder.
    pending = offset === buffer.length ? new Uint8Array(0) : buffer.slice(offset);
    if (messages.length > 0) yield messages;
  }
  if (pending.length > 0) throw badResponse(provider, 'an event stream cut off inside a message');
}

function decodeMessage(bytes: Uint8Array, provider: string): EventStreamMessage {
  let message: Message;
  try {
    message = codec.decode(bytes);
  } catch {
    throw damaged(provider);
  }
  const header = (name: string): string => {
    const value = message.headers[name];
    return value?.type === 'string' ? value.value : '';
  };
  const messageType = header(':message-type');
  const type =
    messageType === 'exception' ? header(':exception-type') : messageType === 'error' ? header(':error-code') : header(':event-type');
  const payload = messageType === 'error' ? JSON.stringify({ message: header(':error-message') }) : toUtf8(message.body);
  return { messageType, type, payload };
}

function damaged(provider: string): UpstreamError {
  return badResponse(provider, 'a damaged event stream');
}

function concat(first: Uint8Array, second: Uint8Array): Uint8Array {
  const result = new Uint8Array(first.length + second.length);
  result.set(first, 0);
  result.set(second, first.length);
  return result;
}
