import type { ChatCompletionRequest, Tool, ToolChoice } from '../../../contract';
import { invalidRequest } from '../../errors/gateway-error';
import { jsonInstruction } from '../anthropic/anthropic-json-mode';
import { reasoningBudget } from '../reasoning';
import type { ModelTarget, ReasoningRequest } from '../types';
import type { ConverseRequest, ConverseTool, ConverseToolChoice } from './bedrock-schemas';
import { convertToConverseMessages } from './convert-to-converse-messages';
import { isAnthropicModel } from './bedrock-models';

/**
 * One OpenAI chat request -> one Converse (or ConverseStream) request; the model is in the path.
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html
 * https://docs.aws.amazon.com/bedrock/latest/userguide/tool-use-inference-call.html
 *
 * | OpenAI                                   | Converse                                                   |
 * |------------------------------------------|------------------------------------------------------------|
 * | system / developer messages              | `system` text blocks                                       |
 * | max_completion_tokens ?? max_tokens      | inferenceConfig.maxTokens (absent: the model's default)    |
 * | stop (string or array)                   | inferenceConfig.stopSequences                              |
 * | temperature (0–2)                        | inferenceConfig.temperature (values above 1 become 1)      |
 * | top_p                                    | inferenceConfig.topP                                       |
 * | tools[].function                         | toolConfig.tools[].toolSpec {name, description, inputSchema.json} |
 * | tool_choice auto / required / {function} | toolChoice {auto} / {any} / {tool: {name}}                 |
 * | tool_choice none                         | no toolConfig (kept without a choice when the conversation has tool blocks, which Converse requires) |
 * | response_format json_object/json_schema  | a system instruction (the JSON-mode text of the anthropic adapter) |
 * | reasoning, on a Claude model             | additionalModelRequestFields.thinking {enabled, budget_tokens} |
 * | n > 1                                    | 400: one reply per request only                            |
 * | user, seed, penalties, logprobs          | no equivalent: ignored                                     |
 */
export function buildConverseRequest(request: ChatCompletionRequest, target: ModelTarget, reasoning?: ReasoningRequest): ConverseRequest {
  if (request.n != null && request.n !== 1) {
    throw invalidRequest('invalid_value', 'This model returns one choice per request; `n` must be 1.', 'n');
  }
  const converted = convertToConverseMessages(request.messages);
  const body: ConverseRequest = { messages: converted.messages };
  const system = converted.system;
  const instruction = request.response_format ? jsonInstruction(request.response_format) : null;
  if (instruction) system.push({ text: instruction });
  if (system.length > 0) body.system = system;

  const inference: NonNullable<ConverseRequest['inferenceConfig']> = {};
  const maxTokens = request.max_completion_tokens ?? request.max_tokens;
  if (maxTokens != null) inference.maxTokens = maxTokens;
  const stop = typeof request.stop === 'string' ? [request.stop] : (request.stop ?? []);
  if (stop.length > 0) inference.stopSequences = stop;
  // Converse's models take 0–1 where OpenAI's range is 0–2: the top is clamped, as for Anthropic.
  if (request.temperature != null) inference.temperature = Math.min(request.temperature, 1);
  if (request.top_p != null) inference.topP = request.top_p;

  const tools = request.tools ?? [];
  const choice = request.tool_choice ?? null;
  if (tools.length > 0 && (choice !== 'none' || converted.hasToolBlocks)) {
    const toolChoice = choice === 'none' ? null : toConverseToolChoice(choice);
    body.toolConfig = { tools: tools.map(toConverseTool), ...(toolChoice ? { toolChoice } : {}) };
  }

  if (reasoning && isAnthropicModel(target.upstreamModel)) addThinking(body, inference, target, reasoning);
  if (Object.keys(inference).length > 0) body.inferenceConfig = inference;
  return body;
}

function toConverseTool(tool: Tool): ConverseTool {
  const spec: ConverseTool['toolSpec'] = {
    name: tool.function.name,
    inputSchema: { json: tool.function.parameters ?? { type: 'object' } },
  };
  if (tool.function.description) spec.description = tool.function.description;
  return { toolSpec: spec };
}

function toConverseToolChoice(choice: ToolChoice | null): ConverseToolChoice | null {
  if (choice === 'required') return { any: {} };
  if (choice !== null && typeof choice === 'object') return { tool: { name: choice.function.name } };
  if (choice === 'auto') return { auto: {} };
  return null;
}

/** Claude's smallest thinking budget. */
const MIN_THINKING_BUDGET = 1024;

/**
 * Claude on Bedrock takes Anthropic's `thinking` through `additionalModelRequestFields`
 * (https://docs.aws.amazon.com/bedrock/latest/userguide/claude-messages-extended-thinking.html),
 * with the rules of the anthropic adapter: at least 1,024 tokens and less than `maxTokens`
 * (the catalogue's default output when the request gives none), none with a forced tool
 * choice or in a turn that answers tool calls, and no temperature or top_p beside it.
 */
function addThinking(
  body: ConverseRequest,
  inference: NonNullable<ConverseRequest['inferenceConfig']>,
  target: ModelTarget,
  reasoning: ReasoningRequest,
): void {
  const wanted = reasoningBudget(reasoning);
  if (wanted === undefined || wanted === 0) return;
  const choice = body.toolConfig?.toolChoice;
  if (choice && ('any' in choice || 'tool' in choice)) return;
  const last = body.messages[body.messages.length - 1];
  if (last?.role === 'user' && last.content.some((block) => 'toolResult' in block)) return;
  const maxTokens = inference.maxTokens ?? target.defaultMaxTokens;
  const budget = Math.min(Math.max(wanted, MIN_THINKING_BUDGET), maxTokens - 1);
  if (budget < MIN_THINKING_BUDGET) return;
  inference.maxTokens = maxTokens;
  delete inference.temperature;
  delete inference.topP;
  body.additionalModelRequestFields = { thinking: { type: 'enabled', budget_tokens: budget } };
}
