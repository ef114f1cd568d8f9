/**
 * Hand-written Gemini replies following the GenerateContentResponse reference
 * (https://ai.google.dev/api/generate-content#v1beta.GenerateContentResponse) and Google's
 * error format (https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes).
 */

export const usage = { promptTokenCount: 12, candidatesTokenCount: 7, thoughtsTokenCount: 30, totalTokenCount: 49 };

export function textReply(text: string, finishReason = 'STOP'): Record<string, unknown> {
  return {
    candidates: [{ content: { parts: [{ text }], role: 'model' }, finishReason, index: 0 }],
    usageMetadata: usage,
    modelVersion: 'gemini-2.5-flash',
    responseId: 'mQ1aaJ3nLqmD1MkP-abc',
  };
}

export const functionCallReply = {
  candidates: [
    {
      content: {
        parts: [
          { text: 'Checking both.' },
          { functionCall: { name: 'get_weather', args: { city: 'Paris', unit: 'C' } }, thoughtSignature: 'CiQB0e2Kb3...' },
          { functionCall: { name: 'get_time', args: {} } },
        ],
        role: 'model',
      },
      finishReason: 'STOP',
      index: 0,
    },
  ],
  usageMetadata: { promptTokenCount: 40, candidatesTokenCount: 22, totalTokenCount: 62 },
  modelVersion: 'gemini-2.5-flash',
};

export const promptBlockedReply = {
  promptFeedback: { blockReason: 'PROHIBITED_CONTENT' },
  usageMetadata: { promptTokenCount: 9, totalTokenCount: 9 },
  modelVersion: 'gemini-2.5-flash',
};

export function googleError(code: number, status: string, message: string, details: unknown[] = []): Record<string, unknown> {
  return { error: { code, message, status, ...(details.length > 0 ? { details } : {}) } };
}

export const apiKeyInvalidError = googleError(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.', [
  {
    '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
    reason: 'API_KEY_INVALID',
    domain: 'googleapis.com',
    metadata: { service: 'generativelanguage.googleapis.com' },
  },
  {
    '@type': 'type.googleapis.com/google.rpc.LocalizedMessage',
    locale: 'en-US',
    message: 'API key not valid. Please pass a valid API key.',
  },
]);

/** One streamed event: a GenerateContentResponse holding the next piece of candidate 0. */
export function streamEvent(parts: unknown[], extra: { finishReason?: string; usageMetadata?: unknown } = {}): Record<string, unknown> {
  const candidate: Record<string, unknown> = { content: { parts, role: 'model' }, index: 0 };
  if (extra.finishReason) candidate.finishReason = extra.finishReason;
  return {
    candidates: [candidate],
    ...(extra.usageMetadata ? { usageMetadata: extra.usageMetadata } : {}),
    modelVersion: 'gemini-2.5-flash',
    responseId: 'stream-1',
  };
}
