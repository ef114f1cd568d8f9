import type { ChatCompletionChunk } from '../../../contract';
import { midstreamError } from './mock-errors';
import type { MockReply } from './mock-reply';
import { toChatUsage } from '../token-usage';
import { mockWait } from './mock-timing';
import type { CallSignal } from '../call-signal';
import { chunkWith, type ChunkHeader } from '../chat-stream';

type Choice = ChatCompletionChunk['choices'][number];

const DEFAULT_MAX_CHUNKS = 20;

export interface MockStreamSettings {
  provider: string;
  latencyMs: number;
  chunkDelayMs: number;
  chunks: number | undefined;
  /** `mock:error:midstream`: fail after two chunks. */
  failMidstream: boolean;
  signal: CallSignal;
}

/** The reply as OpenAI streams it: role on the first delta, finish_reason on the last, then usage. */
export async function* mockChunks(
  reply: MockReply,
  header: ChunkHeader,
  settings: MockStreamSettings,
): AsyncGenerator<ChatCompletionChunk> {
  const choices = replyChoices(reply, settings.chunks);
  await mockWait(settings.latencyMs, settings.signal);
  for (const [position, choice] of choices.entries()) {
    if (position > 0) await mockWait(settings.chunkDelayMs, settings.signal);
    if (settings.failMidstream && position === 2) throw midstreamError(settings.provider);
    yield chunkWith(header, [choice]);
  }
  if (settings.failMidstream) throw midstreamError(settings.provider);
  await mockWait(settings.chunkDelayMs, settings.signal);
  yield chunkWith(header, [], toChatUsage(reply.usage));
}

function replyChoices(reply: MockReply, chunks: number | undefined): Choice[] {
  const call = reply.toolCalls?.[0];
  if (call) {
    // OpenAI's shape: a first delta with id, type and name, then the arguments by index.
    return [
      {
        index: 0,
        delta: {
          role: 'assistant',
          tool_calls: [{ index: 0, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }],
        },
        finish_reason: null,
      },
      {
        index: 0,
        delta: { tool_calls: [{ index: 0, function: { arguments: call.function.arguments } }] },
        finish_reason: reply.finishReason,
      },
    ];
  }
  const pieces = splitIntoPieces(reply.content ?? '', chunks);
  return pieces.map((piece, position) => ({
    index: 0,
    delta: position === 0 ? { role: 'assistant', content: piece } : { content: piece },
    finish_reason: position === pieces.length - 1 ? reply.finishReason : null,
  }));
}

/** `count` pieces of about equal size (default one per word, at most 20); at least one, maybe empty. */
export function splitIntoPieces(text: string, count: number | undefined): string[] {
  // Words keep their trailing space, so the pieces join back to the text.
  let units: string[] = text.match(/\S+\s*|\s+/g) ?? [];
  const wanted = count ?? Math.min(units.length, DEFAULT_MAX_CHUNKS);
  if (units.length < wanted) units = Array.from(text);
  const pieces = Math.max(1, Math.min(wanted, units.length));
  const result: string[] = [];
  for (let piece = 0; piece < pieces; piece++) {
    const start = Math.floor((piece * units.length) / pieces);
    const end = Math.floor(((piece + 1) * units.length) / pieces);
    result.push(units.slice(start, end).join(''));
  }
  return result;
}
