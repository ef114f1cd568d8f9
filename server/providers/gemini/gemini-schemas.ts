import { z } from 'zod';

/**
 * The Gemini API wire format (v1beta), as far as the gateway uses it.
 * Requests are plain types (we build them); replies are lenient zod schemas: unknown fields and
 * part kinds we do not use (inlineData output, executableCode, …) are dropped, never fatal.
 * Reference: https://ai.google.dev/api/generate-content, https://ai.google.dev/api/caching#Content,
 * https://ai.google.dev/api/embeddings.
 */

// ---- Requests --------------------------------------------------------------------------------

/** https://ai.google.dev/api/caching#Part (one data field per part). */
export interface GeminiPart {
  text?: string;
  inlineData?: { mimeType: string; data: string };
  fileData?: { mimeType: string; fileUri: string };
  functionCall?: { id?: string; name: string; args: Record<string, unknown> };
  functionResponse?: { id?: string; name: string; response: Record<string, unknown> };
  /** https://ai.google.dev/gemini-api/docs/thought-signatures */
  thoughtSignature?: string;
}

export interface GeminiContent {
  role: 'user' | 'model';
  parts: GeminiPart[];
}

/** https://ai.google.dev/api/generate-content#generationconfig */
export interface GeminiGenerationConfig {
  temperature?: number;
  topP?: number;
  maxOutputTokens?: number;
  stopSequences?: string[];
  candidateCount?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  seed?: number;
  responseMimeType?: string;
  responseJsonSchema?: Record<string, unknown>;
  /** https://ai.google.dev/gemini-api/docs/thinking: -1 lets the model decide, 0 turns thinking off. */
  thinkingConfig?: { thinkingBudget: number; includeThoughts?: boolean };
}

/** https://ai.google.dev/api/caching#FunctionDeclaration */
export interface GeminiFunctionDeclaration {
  name: string;
  description?: string;
  parametersJsonSchema?: Record<string, unknown>;
}

/** https://ai.google.dev/api/caching#FunctionCallingConfig */
export interface GeminiFunctionCallingConfig {
  mode: 'AUTO' | 'ANY' | 'NONE';
  allowedFunctionNames?: string[];
}

export interface GeminiGenerateContentRequest {
  contents: GeminiContent[];
  systemInstruction?: { parts: { text: string }[] };
  generationConfig?: GeminiGenerationConfig;
  tools?: { functionDeclarations: GeminiFunctionDeclaration[] }[];
  toolConfig?: { functionCallingConfig: GeminiFunctionCallingConfig };
}

/** https://ai.google.dev/api/embeddings#method:-models.embedcontent */
export interface GeminiEmbedContentRequest {
  model?: string;
  content: { parts: { text: string }[] };
  outputDimensionality?: number;
}

// ---- Replies ---------------------------------------------------------------------------------

const tokenCount = z.number().int().nonnegative().optional();

/** https://ai.google.dev/api/generate-content#UsageMetadata */
export const GeminiUsageMetadataSchema = z.object({
  promptTokenCount: tokenCount,
  candidatesTokenCount: tokenCount,
  cachedContentTokenCount: tokenCount,
  thoughtsTokenCount: tokenCount,
  totalTokenCount: tokenCount,
});
export type GeminiUsageMetadata = z.infer<typeof GeminiUsageMetadataSchema>;

export const GeminiResponsePartSchema = z.object({
  text: z.string().optional(),
  /** Thought summaries (thinking models): never part of the answer. */
  thought: z.boolean().optional(),
  functionCall: z
    .object({
      id: z.string().optional(),
      name: z.string(),
      args: z.record(z.unknown()).nullish(),
    })
    .optional(),
});
export type GeminiResponsePart = z.infer<typeof GeminiResponsePartSchema>;

/** https://ai.google.dev/api/generate-content#candidate */
export const GeminiCandidateSchema = z.object({
  index: z.number().int().nonnegative().optional(),
  content: z.object({ role: z.string().optional(), parts: z.array(GeminiResponsePartSchema).optional() }).optional(),
  // A string, not an enum: new reasons appear often and must not break replies.
  finishReason: z.string().optional(),
});
export type GeminiCandidate = z.infer<typeof GeminiCandidateSchema>;

/** https://ai.google.dev/api/generate-content#v1beta.GenerateContentResponse */
export const GeminiGenerateContentResponseSchema = z.object({
  candidates: z.array(GeminiCandidateSchema).optional(),
  promptFeedback: z.object({ blockReason: z.string().optional() }).optional(),
  usageMetadata: GeminiUsageMetadataSchema.optional(),
  modelVersion: z.string().optional(),
  responseId: z.string().optional(),
});
export type GeminiGenerateContentResponse = z.infer<typeof GeminiGenerateContentResponseSchema>;

/** https://ai.google.dev/api/embeddings#EmbedContentResponse */
export const GeminiEmbedContentResponseSchema = z.object({
  embedding: z.object({ values: z.array(z.number()) }),
});

/** https://ai.google.dev/api/embeddings#response-body_1 */
export const GeminiBatchEmbedContentsResponseSchema = z.object({
  embeddings: z.array(z.object({ values: z.array(z.number()) })),
});

/**
 * Google's error body (https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes,
 * https://cloud.google.com/apis/design/errors#error_model): `details` holds typed entries,
 * `google.rpc.ErrorInfo` with a `reason` such as API_KEY_INVALID and `google.rpc.RetryInfo`.
 */
export const GeminiErrorBodySchema = z.object({
  error: z.object({
    code: z.number().int().optional(),
    message: z.string().optional(),
    status: z.string().optional(),
    details: z
      .array(
        z.object({
          '@type': z.string().optional(),
          /** google.rpc.ErrorInfo */
          reason: z.string().optional(),
          /** google.rpc.RetryInfo, a protobuf Duration such as "21s" (sent with 429s). */
          retryDelay: z.string().optional(),
        }),
      )
      .optional(),
  }),
});
export type GeminiErrorBody = z.infer<typeof GeminiErrorBodySchema>;
