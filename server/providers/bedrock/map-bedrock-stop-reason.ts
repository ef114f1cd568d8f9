import type { FinishReason } from '../../../contract';

/**
 * Converse `stopReason` -> OpenAI `finish_reason`.
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_ResponseSyntax
 * A reason not listed (added later) is a natural stop.
 */
const FINISH_REASONS: Readonly<Record<string, FinishReason>> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  guardrail_intervened: 'content_filter',
  content_filtered: 'content_filter',
};

export function mapBedrockStopReason(stopReason: string | null): FinishReason {
  return (stopReason !== null ? FINISH_REASONS[stopReason] : undefined) ?? 'stop';
}
