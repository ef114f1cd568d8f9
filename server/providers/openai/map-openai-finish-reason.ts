import type { FinishReason } from '../../../contract';

/**
 * Upstream `finish_reason` -> one of the four the gateway promises (docs/chat-and-streaming.md).
 * - OpenAI: stop, length, tool_calls, content_filter, function_call (deprecated)
 *   https://platform.openai.com/docs/api-reference/chat/object#chat/object-choices
 * - Mistral: model_length (context window full), error
 *   https://docs.mistral.ai/api/#tag/chat/operation/chat_completion_v1_chat_completions_post
 * - DeepSeek: insufficient_system_resource (reply cut short by the server)
 *   https://api-docs.deepseek.com/api/create-chat-completion
 * - vLLM/TGI/llama.cpp/Ollama engines: eos, eos_token, stop_sequence, max_tokens, tool_call
 * Anything else is a natural end as far as the client can tell: 'stop'.
 */
const FINISH_REASONS: Readonly<Record<string, FinishReason>> = {
  stop: 'stop',
  length: 'length',
  tool_calls: 'tool_calls',
  content_filter: 'content_filter',
  function_call: 'tool_calls',
  tool_call: 'tool_calls',
  model_length: 'length',
  max_tokens: 'length',
  max_length: 'length',
  insufficient_system_resource: 'length',
  eos: 'stop',
  eos_token: 'stop',
  stop_sequence: 'stop',
  end_turn: 'stop',
};

export function mapOpenAiFinishReason(reason: string): FinishReason {
  return Object.hasOwn(FINISH_REASONS, reason) ? (FINISH_REASONS[reason] ?? 'stop') : 'stop';
}
