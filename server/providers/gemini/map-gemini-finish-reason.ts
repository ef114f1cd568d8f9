import type { FinishReason } from '../../../contract';

/**
 * Gemini finish reasons -> OpenAI `finish_reason`
 * (https://ai.google.dev/api/generate-content#FinishReason,
 * block reasons: https://ai.google.dev/api/generate-content#BlockReason).
 *
 * | Gemini                                                                     | OpenAI                                 |
 * |----------------------------------------------------------------------------|----------------------------------------|
 * | STOP                                                                       | stop, or tool_calls with function calls |
 * | MAX_TOKENS                                                                 | length                                  |
 * | SAFETY, RECITATION, BLOCKLIST, PROHIBITED_CONTENT, SPII, IMAGE_SAFETY,     | content_filter                          |
 * | IMAGE_PROHIBITED_CONTENT, IMAGE_RECITATION                                 |                                         |
 * | OTHER, LANGUAGE, MALFORMED_FUNCTION_CALL, FINISH_REASON_UNSPECIFIED, new … | stop                                    |
 */
const CONTENT_FILTER_REASONS = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'IMAGE_RECITATION',
]);

export function mapGeminiFinishReason(reason: string | undefined, hasToolCalls: boolean): FinishReason {
  // A reply with no finishReason at all (non-streaming) is treated as a natural stop.
  if (reason === undefined || reason === 'STOP') return hasToolCalls ? 'tool_calls' : 'stop';
  if (reason === 'MAX_TOKENS') return 'length';
  if (CONTENT_FILTER_REASONS.has(reason)) return 'content_filter';
  return 'stop';
}
