import type { ChatCompletionRequest, Tool, ToolChoice } from '../../../contract';
import { invalidRequest } from '../../errors/gateway-error';
import { reasoningBudget } from '../reasoning';
import type { ModelTarget, ReasoningRequest } from '../types';
import { JSON_PREFILL, acceptsAssistantPrefill, jsonInstruction } from './anthropic-json-mode';
import type { AnthropicMessagesRequest, AnthropicTool, AnthropicToolChoice } from './anthropic-schemas';
import { convertToAnthropicMessages } from './convert-to-anthropic-messages';

/**
 * One OpenAI chat request -> one Anthropic Messages request.
 * Parameters: https://platform.claude.com/docs/en/api/messages
 * Tools:      https://platform.claude.com/docs/en/agents-and-tools/tool-use/implement-tool-use
 *             https://platform.claude.com/docs/en/agents-and-tools/tool-use/parallel-tool-use
 *
 * | OpenAI                                   | Anthropic                                          |
 * |------------------------------------------|----------------------------------------------------|
 * | system / developer messages              | `system` (joined by a blank line)                  |
 * | max_completion_tokens ?? max_tokens      | `max_tokens` (required; else the model's default)  |
 * | stop (string or array)                   | `stop_sequences`                                   |
 * | temperature (0–2)                        | `temperature` (0–1: values above 1 become 1)       |
 * | top_p                                    | `top_p`                                            |
 * | user                                     | `metadata.user_id`                                 |
 * | tools[].function                         | `tools[]` {name, description, input_schema}        |
 * | tool_choice auto / required / none       | {type: auto} / {type: any} / {type: none}          |
 * | tool_choice {function: {name}}           | {type: tool, name}                                 |
 * | parallel_tool_calls: false               | tool_choice.disable_parallel_tool_use: true        |
 * | response_format json_object/json_schema  | system instruction + `{` prefill (anthropic-json-mode.ts) |
 * | n > 1                                    | 400: one reply per request only                    |
 * | presence/frequency_penalty, seed         | no equivalent: ignored                             |
 * | reasoning (CallOptions: effort, budget)  | `thinking` {enabled, budget_tokens} (below)        |
 */
export interface BuiltAnthropicRequest {
  body: AnthropicMessagesRequest;
  /** Text the assistant turn was prefilled with; the reply continues after it. */
  prefill: string | null;
}

export function buildAnthropicRequest(
  request: ChatCompletionRequest,
  target: ModelTarget,
  stream: boolean,
  reasoning?: ReasoningRequest,
): BuiltAnthropicRequest {
  if (request.n != null && request.n !== 1) {
    throw invalidRequest('invalid_value', 'This model returns one choice per request; `n` must be 1.', 'n');
  }

  const converted = convertToAnthropicMessages(request.messages);
  const body: AnthropicMessagesRequest = {
    model: target.upstreamModel,
    max_tokens: request.max_completion_tokens ?? request.max_tokens ?? target.defaultMaxTokens,
    messages: converted.messages,
  };
  let system = converted.system;

  const stop = typeof request.stop === 'string' ? [request.stop] : (request.stop ?? []);
  if (stop.length > 0) body.stop_sequences = stop;
  // Anthropic's temperature range is 0–1 where OpenAI's is 0–2; both mean "as random as it
  // gets" at the top, so the top of OpenAI's range is clamped rather than refused or rescaled.
  if (request.temperature != null) body.temperature = Math.min(request.temperature, 1);
  if (request.top_p != null) body.top_p = request.top_p;
  if (request.user) body.metadata = { user_id: request.user };

  const tools = request.tools ?? [];
  if (tools.length > 0) {
    body.tools = tools.map(toAnthropicTool);
    const toolChoice = toAnthropicToolChoice(request.tool_choice ?? null, request.parallel_tool_calls ?? null);
    if (toolChoice) body.tool_choice = toolChoice;
  }

  if (reasoning) addThinking(body, reasoning);

  let prefill: string | null = null;
  const instruction = request.response_format ? jsonInstruction(request.response_format) : null;
  if (instruction) {
    system = system ? `${system}\n\n${instruction}` : instruction;
    if (canPrefill(body, target)) {
      body.messages.push({ role: 'assistant', content: [{ type: 'text', text: JSON_PREFILL }] });
      prefill = JSON_PREFILL;
    }
  }

  if (system) body.system = system;
  if (stream) body.stream = true;
  return { body, prefill };
}

function toAnthropicTool(tool: Tool): AnthropicTool {
  const result: AnthropicTool = { name: tool.function.name, input_schema: tool.function.parameters ?? { type: 'object' } };
  if (tool.function.description) result.description = tool.function.description;
  return result;
}

/** `none` exists in the API ("prevents Claude from using any tools"), so tools stay declared. */
function toAnthropicToolChoice(choice: ToolChoice | null, parallelToolCalls: boolean | null): AnthropicToolChoice | null {
  const disableParallel = parallelToolCalls === false ? { disable_parallel_tool_use: true } : {};
  if (choice === 'none') return { type: 'none' };
  if (choice === 'required') return { type: 'any', ...disableParallel };
  if (choice !== null && typeof choice === 'object') return { type: 'tool', name: choice.function.name, ...disableParallel };
  // `auto` is the API's default when tools are given; it is only spelled out to carry the flag.
  if (choice === 'auto' || parallelToolCalls === false) return { type: 'auto', ...disableParallel };
  return null;
}

/**
 * Not when the conversation already ends with an assistant turn (the caller's own prefill),
 * not when a tool call is forced (the API then starts the turn with the tool call itself), and
 * not on models that refuse prefill.
 */
function canPrefill(body: AnthropicMessagesRequest, target: ModelTarget): boolean {
  const last = body.messages[body.messages.length - 1];
  if (!last || last.role === 'assistant') return false;
  if (body.tool_choice && (body.tool_choice.type === 'any' || body.tool_choice.type === 'tool')) return false;
  if (body.thinking) return false;
  return acceptsAssistantPrefill(target.upstreamModel);
}

/** Anthropic's smallest thinking budget. */
const MIN_THINKING_BUDGET = 1024;

/**
 * https://platform.claude.com/docs/en/build-with-claude/extended-thinking: the budget of
 * server/providers/reasoning.ts, at least 1,024 and less than `max_tokens` (which counts the
 * thinking). No thinking when that leaves less than 1,024, for effort `none`, with a forced
 * tool call (which the API refuses with thinking), and in a turn that answers tool calls: the
 * API then wants the earlier thinking blocks back with their signatures, which a translated
 * conversation does not carry. With thinking on, `temperature` and
 * `top_p` are not sent: the API accepts neither changed.
 */
function addThinking(body: AnthropicMessagesRequest, reasoning: ReasoningRequest): void {
  const wanted = reasoningBudget(reasoning);
  if (wanted === undefined || wanted === 0) return;
  if (body.tool_choice?.type === 'any' || body.tool_choice?.type === 'tool') return;
  const last = body.messages[body.messages.length - 1];
  if (last?.role === 'user' && last.content.some((block) => block.type === 'tool_result')) return;
  const budget = Math.min(Math.max(wanted, MIN_THINKING_BUDGET), body.max_tokens - 1);
  if (budget < MIN_THINKING_BUDGET) return;
  body.thinking = { type: 'enabled', budget_tokens: budget };
  delete body.temperature;
  delete body.top_p;
}
