import type { FinishReason } from '../../../contract';

/**
 * Anthropic `stop_reason` -> OpenAI `finish_reason` (docs/chat-and-streaming.md: one of four values).
 * https://platform.claude.com/docs/en/build-with-claude/handling-stop-reasons
 * - pause_turn: a server-tool loop paused; the turn's content is usable as it stands.
 * - model_context_window_exceeded: the reply filled the context window, i.e. it was truncated.
 * - refusal: Claude declined (streaming refusals page) -> content_filter, as OpenAI reports it.
 * Unknown or missing values (new API versions) end the reply normally.
 */
const STOP_REASONS: Readonly<Record<string, FinishReason>> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  pause_turn: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
};

export function mapAnthropicStopReason(stopReason: string | null | undefined): FinishReason {
  return (stopReason ? STOP_REASONS[stopReason] : undefined) ?? 'stop';
}
