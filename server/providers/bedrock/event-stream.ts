import { crc32 } from 'node:zlib';
import type { UpstreamError } from '../../errors/gateway-error';
import { badResponse } from '../upstream-errors';

/**
 * The `application/vnd.amazon.eventstream` framing of Bedrock's streams
 * (https://docs.aws.amazon.com/AmazonS3/latest/API/RESTSelectObjectAppendix.html, "Prelude"):
 * each message is a 4-byte big-endian total length, a 4-byte headers length, a CRC-32 of those
 * eight bytes, the headers, the payload and a CRC-32 of everything before it. Each header is a
 * 1-byte name length, the name, a 1-byte value type and the value (strings: a 2-byte length and
 * UTF-8 text).
 *
 * Decoded here rather than by AWS's codec (@smithy/core's EventStreamCodec, which the tests' mock
 * encodes with): the codec turns every header into an object and every text into a Buffer copy,
 * and costs more than twice as much a message; a stream has a message per delta
 * (docs/performance.md, "Speed tricks in the code"). Both checksums are still verified, and a
 * message that does not add up is refused as the codec refuses it.
 */

/** One decoded message: its `:message-type`, `:event-type` or `:exception-type`, and its payload as text. */
export interface EventStreamMessage {
  messageType: string;
  /** `:event-type` of an event, `:exception-type` of an exception, `:error-code` of an error. */
  type: string;
  payload: string;
}

/** The prelude: total length, headers length, their CRC. */
const PRELUDE_BYTES = 12;
/** Smallest message: the prelude and the 4-byte message CRC. */
const MIN_MESSAGE_BYTES = PRELUDE_BYTES + 4;
/** Largest message accepted, well above any Bedrock event: guards memory against a corrupt length. */
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
/** The bytes a header value of each fixed-size type (by its type tag) takes after the tag. */
const FIXED_VALUE_BYTES = [0, 0, 1, 2, 4, 8, -1, -1, 8, 16];
const BYTE_ARRAY_TYPE = 6;
const STRING_TYPE = 7;

/** The headers read (by their names' bytes, without making strings of them); others (`:content-type`, …) are skipped. */
const MESSAGE_TYPE = Buffer.from(':message-type');
const EVENT_TYPE = Buffer.from(':event-type');
const EXCEPTION_TYPE = Buffer.from(':exception-type');
const ERROR_CODE = Buffer.from(':error-code');
const ERROR_MESSAGE = Buffer.from(':error-message');

/** CRC-32 (the one zlib computes) byte by byte, for the 8-byte prelude: cheaper there than a call into zlib. */
const CRC_TABLE = Int32Array.from({ length: 256 }, (_, byte) => {
  let crc = byte;
  for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? 0xedb88320 ^ (crc >>> 1) : crc >>> 1;
  return crc;
});

/**
 * Cuts a body into whole messages across reads that split them anywhere, and decodes them.
 * `push` returns the messages a read completed; `end` throws if the body stopped inside one.
 * Both throw an UpstreamError on a damaged stream.
 */
export class EventStreamDecoder {
  private pending: Buffer | null = null;

  constructor(private readonly provider: string) {}

  push(bytes: Uint8Array): EventStreamMessage[] {
    const read = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const buffer = this.pending === null ? read : Buffer.concat([this.pending, read]);
    const messages: EventStreamMessage[] = [];
    let offset = 0;
    while (buffer.length - offset >= 4) {
      const total = buffer.readUInt32BE(offset);
      if (total < MIN_MESSAGE_BYTES || total > MAX_MESSAGE_BYTES) throw this.damaged();
      if (buffer.length - offset < total) break;
      messages.push(this.decode(buffer, offset, total));
      offset += total;
    }
    // A copy, so that the read's buffer is not kept alive by a small remainder.
    this.pending = offset === buffer.length ? null : Buffer.from(buffer.subarray(offset));
    return messages;
  }

  end(): void {
    if (this.pending !== null) throw badResponse(this.provider, 'an event stream cut off inside a message');
  }

  /** The message of `total` bytes at `start` of `buffer`. */
  private decode(buffer: Buffer, start: number, total: number): EventStreamMessage {
    const end = start + total - 4;
    const headersEnd = start + PRELUDE_BYTES + buffer.readUInt32BE(start + 4);
    const preludeCrc = smallCrc32(buffer, start, start + 8);
    if (headersEnd > end || preludeCrc !== buffer.readUInt32BE(start + 8)) throw this.damaged();
    // The message's CRC covers the prelude too: continued from the prelude's.
    if (crc32(buffer.subarray(start + 8, end), preludeCrc) !== buffer.readUInt32BE(end)) throw this.damaged();

    let messageType = '';
    let eventType = '';
    let exceptionType = '';
    let errorCode = '';
    let errorMessage = '';
    let position = start + PRELUDE_BYTES;
    while (position < headersEnd) {
      const nameStart = position + 1;
      const nameEnd = nameStart + (buffer[position] as number);
      if (nameEnd >= headersEnd) throw this.damaged();
      const type = buffer[nameEnd] as number;
      position = nameEnd + 1;
      if (type === STRING_TYPE || type === BYTE_ARRAY_TYPE) {
        if (position + 2 > headersEnd) throw this.damaged();
        const valueStart = position + 2;
        const valueEnd = valueStart + buffer.readUInt16BE(position);
        if (valueEnd > headersEnd) throw this.damaged();
        if (type === STRING_TYPE) {
          if (hasBytes(buffer, nameStart, nameEnd, MESSAGE_TYPE)) messageType = buffer.toString('utf8', valueStart, valueEnd);
          else if (hasBytes(buffer, nameStart, nameEnd, EVENT_TYPE)) eventType = buffer.toString('utf8', valueStart, valueEnd);
          else if (hasBytes(buffer, nameStart, nameEnd, EXCEPTION_TYPE)) exceptionType = buffer.toString('utf8', valueStart, valueEnd);
          else if (hasBytes(buffer, nameStart, nameEnd, ERROR_CODE)) errorCode = buffer.toString('utf8', valueStart, valueEnd);
          else if (hasBytes(buffer, nameStart, nameEnd, ERROR_MESSAGE)) errorMessage = buffer.toString('utf8', valueStart, valueEnd);
        }
        position = valueEnd;
      } else {
        const size = FIXED_VALUE_BYTES[type];
        if (size === undefined || size < 0) throw this.damaged();
        position += size;
      }
    }
    if (position !== headersEnd) throw this.damaged();

    if (messageType === 'error') return { messageType, type: errorCode, payload: JSON.stringify({ message: errorMessage }) };
    const type = messageType === 'exception' ? exceptionType : eventType;
    return { messageType, type, payload: buffer.toString('utf8', headersEnd, end) };
  }

  private damaged(): UpstreamError {
    return badResponse(this.provider, 'a damaged event stream');
  }
}

/** Whether `buffer` holds exactly `bytes` from `start` to `end`. */
function hasBytes(buffer: Buffer, start: number, end: number, bytes: Buffer): boolean {
  if (end - start !== bytes.length) return false;
  for (let index = 0; index < bytes.length; index++) if (buffer[start + index] !== bytes[index]) return false;
  return true;
}

function smallCrc32(buffer: Buffer, start: number, end: number): number {
  let crc = -1;
  for (let index = start; index < end; index++) crc = (CRC_TABLE[(crc ^ (buffer[index] as number)) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ -1) >>> 0;
}

/** The body's messages, grouped by upstream read; throws an UpstreamError on a damaged or cut-off stream. */
export async function* decodeEventStream(body: AsyncIterable<Uint8Array>, provider: string): AsyncGenerator<EventStreamMessage[]> {
  const decoder = new EventStreamDecoder(provider);
  for await (const bytes of body) {
    const messages = decoder.push(bytes);
    if (messages.length > 0) yield messages;
  }
  decoder.end();
}
