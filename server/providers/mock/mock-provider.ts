import type { ChatCompletion } from '../../../contract';
import type { ChatResult, ChatStream, EmbeddingsResult, ProviderAdapter, ProviderFactoryOptions } from '../types';
import { midstreamError, mockTrigger, triggerError } from './mock-errors';
import { mockDimensions, mockEmbedding } from './mock-embeddings';
import { parseMockOptions } from './mock-options';
import { buildMockReply, countTokens, lastUserText } from './mock-reply';
import { toChatUsage } from '../token-usage';
import { mockChunks } from './mock-stream';
import { mockWait } from './mock-timing';
import { throwIfAborted } from '../call-signal';
import { tokenizer } from '../../usage/tokenizer';

/**
 * The `mock` provider type: a local, deterministic model for trying the gateway and for load
 * tests (docs/configuration.md). No network: `http` and `baseUrl` are not used. The reply quotes the
 * last user message; tools, JSON mode, `stop` and `max_tokens` behave as OpenAI's do, usage is
 * counted with the o200k tokenizer. Failures on demand: see mock-errors.ts.
 */
export function createMockProvider(options: ProviderFactoryOptions): ProviderAdapter {
  const { name, now, generateId } = options;
  const settings = parseMockOptions(name, options.options);
  // Every mock reply is tokenized: the tables load now, at startup, rather than holding the
  // event loop in the middle of the first request (and of the requests beside it).
  tokenizer();
  const header = (model: string) => ({ id: `chatcmpl-${generateId()}`, created: Math.floor(now() / 1000), model });

  return {
    type: 'mock',

    async chat(request, target, callOptions): Promise<ChatResult> {
      await mockWait(settings.latency_ms, callOptions.signal);
      const failure = triggerError(name, mockTrigger(lastUserText(request.messages)), false);
      if (failure) throw failure;
      const reply = buildMockReply(request, generateId);
      const completion: ChatCompletion = {
        ...header(target.id),
        object: 'chat.completion',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: reply.content, ...(reply.toolCalls ? { tool_calls: reply.toolCalls } : {}) },
            finish_reason: reply.finishReason,
          },
        ],
        usage: toChatUsage(reply.usage),
      };
      return { completion, usage: reply.usage };
    },

    async chatStream(request, target, callOptions): Promise<ChatStream> {
      const trigger = mockTrigger(lastUserText(request.messages));
      const failure = triggerError(name, trigger, true);
      if (failure) {
        // Real providers refuse with a status before streaming: the error comes before the stream.
        await mockWait(settings.latency_ms, callOptions.signal);
        throw failure;
      }
      throwIfAborted(callOptions.signal);
      const reply = buildMockReply(request, generateId);
      const chunks = mockChunks(reply, Object.assign(header(target.id), { object: 'chat.completion.chunk' as const }), {
        provider: name,
        latencyMs: settings.latency_ms,
        chunkDelayMs: settings.chunk_delay_ms,
        chunks: settings.chunks,
        failMidstream: trigger === 'error_midstream',
        signal: callOptions.signal,
      });
      return { chunks };
    },

    async embeddings(request, target, callOptions): Promise<EmbeddingsResult> {
      await mockWait(settings.latency_ms, callOptions.signal);
      const inputs = typeof request.input === 'string' ? [request.input] : request.input;
      for (const input of inputs) {
        const trigger = mockTrigger(input);
        const failure = trigger === 'error_midstream' ? midstreamError(name) : triggerError(name, trigger, false);
        if (failure) throw failure;
      }
      const dimensions = mockDimensions(request.dimensions, target.dimensions);
      const promptTokens = inputs.reduce((sum, input) => sum + countTokens(input), 0);
      return {
        response: {
          object: 'list',
          data: inputs.map((input, index) => ({ object: 'embedding', index, embedding: mockEmbedding(input, dimensions) })),
          model: target.id,
          usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
        },
        usage: { promptTokens, completionTokens: 0 },
      };
    },
  };
}
