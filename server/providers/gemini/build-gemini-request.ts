import type { ChatCompletionRequest, ToolChoice } from '../../../contract';
import { reasoningBudget } from '../reasoning';
import type { ReasoningRequest } from '../types';
import { convertToGeminiContents } from './convert-to-gemini-contents';
import type { GeminiFunctionCallingConfig, GeminiGenerateContentRequest, GeminiGenerationConfig } from './gemini-schemas';

/**
 * A validated OpenAI chat request -> a Gemini GenerateContentRequest
 * (https://ai.google.dev/api/generate-content#request-body).
 *
 * | OpenAI                                  | Gemini generationConfig                         |
 * |-----------------------------------------|-------------------------------------------------|
 * | temperature, top_p                      | temperature, topP                               |
 * | max_completion_tokens ?? max_tokens     | maxOutputTokens                                 |
 * | stop (string or array)                  | stopSequences                                   |
 * | n                                       | candidateCount                                  |
 * | presence_penalty, frequency_penalty     | presencePenalty, frequencyPenalty               |
 * | seed                                    | seed                                            |
 * | response_format json_object             | responseMimeType "application/json"             |
 * | response_format json_schema             | responseMimeType + responseJsonSchema           |
 * | reasoning (CallOptions)                 | thinkingConfig {thinkingBudget, includeThoughts}|
 *
 * JSON Schemas (response_format, tool parameters) go in the `…JsonSchema` fields, which take
 * JSON Schema as OpenAI clients write it; `responseSchema`/`parameters` take an OpenAPI subset
 * that refuses common keywords such as `additionalProperties` and `$schema`
 * (https://ai.google.dev/api/generate-content#FIELDS.response_json_schema,
 * https://ai.google.dev/api/caching#FunctionDeclaration).
 */
export function buildGeminiRequest(request: ChatCompletionRequest, reasoning?: ReasoningRequest): GeminiGenerateContentRequest {
  const { systemInstruction, contents } = convertToGeminiContents(request.messages);
  const body: GeminiGenerateContentRequest = { contents };
  if (systemInstruction) body.systemInstruction = systemInstruction;

  const generationConfig = buildGenerationConfig(request);
  if (reasoning) generationConfig.thinkingConfig = thinkingConfig(reasoning);
  if (Object.keys(generationConfig).length > 0) body.generationConfig = generationConfig;

  if (request.tools && request.tools.length > 0) {
    body.tools = [
      {
        functionDeclarations: request.tools.map(({ function: definition }) => ({
          name: definition.name,
          ...(definition.description !== undefined ? { description: definition.description } : {}),
          ...(definition.parameters !== undefined ? { parametersJsonSchema: definition.parameters } : {}),
        })),
      },
    ];
  }
  if (request.tool_choice) body.toolConfig = { functionCallingConfig: mapToolChoice(request.tool_choice) };
  return body;
}

function buildGenerationConfig(request: ChatCompletionRequest): GeminiGenerationConfig {
  const config: GeminiGenerationConfig = {};
  if (request.temperature != null) config.temperature = request.temperature;
  if (request.top_p != null) config.topP = request.top_p;
  const maxTokens = request.max_completion_tokens ?? request.max_tokens;
  if (maxTokens != null) config.maxOutputTokens = maxTokens;
  if (request.stop != null) {
    const stop = typeof request.stop === 'string' ? [request.stop] : request.stop;
    if (stop.length > 0) config.stopSequences = stop;
  }
  if (request.n != null) config.candidateCount = request.n;
  if (request.presence_penalty != null) config.presencePenalty = request.presence_penalty;
  if (request.frequency_penalty != null) config.frequencyPenalty = request.frequency_penalty;
  if (request.seed != null) config.seed = request.seed;

  const format = request.response_format;
  if (format?.type === 'json_object') {
    config.responseMimeType = 'application/json';
  } else if (format?.type === 'json_schema') {
    config.responseMimeType = 'application/json';
    if (format.json_schema.schema) config.responseJsonSchema = format.json_schema.schema;
  }
  return config;
}

/**
 * https://ai.google.dev/gemini-api/docs/thinking: the budget of server/providers/reasoning.ts
 * (-1, dynamic, when the request leaves it to the model) and the thought summaries, which come
 * back as reasoning text; effort `none` is a budget of 0, thinking off.
 */
function thinkingConfig(reasoning: ReasoningRequest): NonNullable<GeminiGenerationConfig['thinkingConfig']> {
  const budget = reasoningBudget(reasoning) ?? -1;
  return budget === 0 ? { thinkingBudget: 0 } : { thinkingBudget: budget, includeThoughts: true };
}

/** https://ai.google.dev/api/caching#Mode */
function mapToolChoice(choice: ToolChoice): GeminiFunctionCallingConfig {
  if (choice === 'none') return { mode: 'NONE' };
  if (choice === 'auto') return { mode: 'AUTO' };
  if (choice === 'required') return { mode: 'ANY' };
  return { mode: 'ANY', allowedFunctionNames: [choice.function.name] };
}
