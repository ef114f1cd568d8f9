import { crc32 } from 'node:zlib';
import { EventStreamCodec, Int64 } from '@smithy/core/event-streams';
import { fromUtf8, toUtf8 } from '@smithy/core/serde';
import type { MessageHeaders } from '@smithy/types';
import { describe, expect, it } from 'vitest';
import { decodeEventStream, type EventStreamMessage } from '../../../server/providers/bedrock/event-stream';
import { converseTextEvents, encodeEvents } from '../../helpers/mock-bedrock-upstream';
import { rejectionOf } from './harness';

/**
 * The event-stream framing cut into whole messages, whatever the reads, and decoded
 * (server/providers/bedrock/event-stream.ts), against messages encoded by AWS's own codec.
 */
const EVENTS = [...converseTextEvents(['Hello', ', wörld']), { exception: 'throttlingException', message: 'Slow down.' }];
const BYTES = encodeEvents(EVENTS);

async function* reads(bytes: Uint8Array, sizes: number[]): AsyncGenerator<Uint8Array> {
  let offset = 0;
  for (let index = 0; offset < bytes.length; index++) {
    const size = sizes[index % sizes.length] ?? 1;
    yield bytes.subarray(offset, offset + size);
    offset += size;
  }
}

async function decodeAll(source: AsyncIterable<Uint8Array>): Promise<EventStreamMessage[]> {
  const messages: EventStreamMessage[] = [];
  for await (const batch of decodeEventStream(source, 'bedrock')) messages.push(...batch);
  return messages;
}

describe('event-stream decoding', () => {
  it('decodes the same messages whether the bytes come whole, byte by byte or in odd pieces', async () => {
    const whole = await decodeAll(reads(BYTES, [BYTES.length]));
    expect(whole.map((message) => [message.messageType, message.type])).toEqual([
      ['event', 'messageStart'],
      ['event', 'contentBlockDelta'],
      ['event', 'contentBlockDelta'],
      ['event', 'contentBlockStop'],
      ['event', 'messageStop'],
      ['event', 'metadata'],
      ['exception', 'throttlingException'],
    ]);
    expect(JSON.parse(whole[2]?.payload ?? '')).toEqual({ contentBlockIndex: 0, delta: { text: ', wörld' } });
    expect(JSON.parse(whole[6]?.payload ?? '')).toEqual({ message: 'Slow down.' });
    expect(await decodeAll(reads(BYTES, [1]))).toEqual(whole);
    expect(await decodeAll(reads(BYTES, [3, 97, 13]))).toEqual(whole);
  });

  it('refuses a stream cut inside a message, and a message whose checksum does not match', async () => {
    expect(await rejectionOf(decodeAll(reads(BYTES.subarray(0, BYTES.length - 5), [64])))).toMatchObject({
      code: 'upstream_bad_response',
      message: 'The provider "bedrock" answered with an event stream cut off inside a message.',
    });
    const damaged = Uint8Array.from(BYTES);
    damaged[20] = (damaged[20] ?? 0) ^ 0xff;
    expect(await rejectionOf(decodeAll(reads(damaged, [BYTES.length])))).toMatchObject({
      message: 'The provider "bedrock" answered with a damaged event stream.',
    });
  });

  it('reads the type and payload of a message whatever other headers it carries, and an error message', async () => {
    const codec = new EventStreamCodec(toUtf8, fromUtf8);
    const text = (value: string) => ({ type: 'string' as const, value });
    // Every header value type of the framing, before and after the ones that count.
    const headers: MessageHeaders = {
      yes: { type: 'boolean', value: true },
      no: { type: 'boolean', value: false },
      ':message-type': text('event'),
      byte: { type: 'byte', value: -3 },
      short: { type: 'short', value: 1234 },
      integer: { type: 'integer', value: 123_456 },
      long: { type: 'long', value: Int64.fromNumber(2 ** 40) },
      binary: { type: 'binary', value: Uint8Array.from([0, 7, 255]) },
      ':event-type': text('contentBlockDelta'),
      timestamp: { type: 'timestamp', value: new Date(1_750_000_000_000) },
      uuid: { type: 'uuid', value: '0f8fad5b-d9cb-469f-a165-70867728950e' },
      ':content-type': text('application/json'),
    };
    const payload = '{"contentBlockIndex":0,"delta":{"text":"é"}}';
    const event = codec.encode({ headers, body: fromUtf8(payload) });
    const error = codec.encode({
      headers: { ':message-type': text('error'), ':error-code': text('InternalFailure'), ':error-message': text('Try again.') },
      body: new Uint8Array(0),
    });
    const bytes = Buffer.concat([event, error]);
    const expected: EventStreamMessage[] = [
      { messageType: 'event', type: 'contentBlockDelta', payload },
      { messageType: 'error', type: 'InternalFailure', payload: '{"message":"Try again."}' },
    ];
    expect(await decodeAll(reads(bytes, [bytes.length]))).toEqual(expected);
    expect(await decodeAll(reads(bytes, [5, 1, 40]))).toEqual(expected);
  });

  it('refuses a message whose prelude checksum does not match, or whose headers overrun it', async () => {
    const first = BYTES.subarray(0, new DataView(BYTES.buffer, BYTES.byteOffset).getUint32(0));
    const prelude = Uint8Array.from(first);
    prelude[9] = (prelude[9] ?? 0) ^ 0x01;
    expect(await rejectionOf(decodeAll(reads(prelude, [prelude.length])))).toMatchObject({
      message: 'The provider "bedrock" answered with a damaged event stream.',
    });
    // A headers length past the message's end, its checksums made right: refused all the same.
    const overrun = Buffer.from(first);
    overrun.writeUInt32BE(overrun.length, 4);
    overrun.writeUInt32BE(crc32(overrun.subarray(0, 8)), 8);
    overrun.writeUInt32BE(crc32(overrun.subarray(0, overrun.length - 4)), overrun.length - 4);
    expect(await rejectionOf(decodeAll(reads(overrun, [overrun.length])))).toMatchObject({
      message: 'The provider "bedrock" answered with a damaged event stream.',
    });
  });
});
