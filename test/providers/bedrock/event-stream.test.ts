import { describe, expect, it } from 'vitest';
import { decodeEventStream, type EventStreamMessage } from '../../../server/providers/bedrock/event-stream';
import { converseTextEvents, encodeEvents } from '../../helpers/mock-bedrock-upstream';
import { rejectionOf } from './harness';

/** The event-stream framing cut into whole messages, whatever the reads (server/providers/bedrock/event-stream.ts). */
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
});
