import type {
  ChatCompletionRequest,
  ContentPart,
  InputContentPart,
  InputItem,
  Message,
  MessageItem,
  ResponsesRequest,
  ResponsesTool,
  Tool,
  ToolCall,
  ToolChoice,
} from '../../contract';
import {
  CustomToolCallItemSchema,
  CustomToolCallOutputItemSchema,
  FunctionCallItemSchema,
  FunctionCallOutputItemSchema,
  MessageItemSchema,
} from '../../contract/responses';
import { invalidRequest } from '../errors/gateway-error';
import { compileBodySchema, type BodyValidator } from '../pipeline/compiled-schema';

/**
 * /v1/responses -> the gateway's chat request, for every upstream that does not serve the
 * Responses API itself (docs/openai-responses.md has the table):
 *
 * | Responses                                   | Chat                                            |
 * |---------------------------------------------|-------------------------------------------------|
 * | instructions, system/developer messages     | `system` messages, in order                     |
 * | input string / user message                 | `user` message (input_text, input_image parts)  |
 * | assistant message (output_text, refusal)    | `assistant` message                             |
 * | function_call / custom_tool_call items      | `tool_calls` of the assistant message           |
 * | function_call_output / custom_tool_call_output | `tool` messages                              |
 * | reasoning items                             | left out (chat has no reasoning input)          |
 * | function tools                              | function tools                                  |
 * | custom tools                                | function tools taking `{"input": string}`       |
 * | hosted tools (web_search, namespace, …)     | dropped and named, or 400 (`responses_hosted_tools`) |
 * | max_output_tokens                           | max_completion_tokens                           |
 * | reasoning.effort                            | the call's reasoning (create-response.ts)       |
 * | text.format                                 | response_format                                 |
 */

export interface ChatTranslation {
  request: ChatCompletionRequest;
  /** Names of the custom tools: their calls go back to the client as custom_tool_call items. */
  customTools: Set<string>;
  /** Types of the hosted tools left out (for x-gateway-dropped-tools and the access log). */
  droppedTools: string[];
}

/** The parameter of a custom tool's function: the one string the model writes. */
const CUSTOM_TOOL_PARAMETERS = {
  type: 'object',
  properties: { input: { type: 'string', description: 'The tool input, as free-form text.' } },
  required: ['input'],
  additionalProperties: false,
};

export function responsesToChat(request: ResponsesRequest, hostedTools: 'drop' | 'reject'): ChatTranslation {
  const { tools, customTools, droppedTools } = translateTools(request.tools ?? [], hostedTools);
  const messages: Message[] = [];
  if (request.instructions) messages.push({ role: 'system', content: request.instructions });
  if (typeof request.input === 'string') messages.push({ role: 'user', content: request.input });
  else request.input.forEach((item, index) => addItem(messages, item, index));
  if (messages.length === 0) throw invalidRequest('invalid_value', 'The request has no input to send to the model.', 'input');

  const chat: ChatCompletionRequest = { model: request.model, messages };
  if (request.stream === true) chat.stream = true;
  if (typeof request.temperature === 'number') chat.temperature = request.temperature;
  if (typeof request.top_p === 'number') chat.top_p = request.top_p;
  if (typeof request.max_output_tokens === 'number') chat.max_completion_tokens = request.max_output_tokens;
  if (tools.length > 0) {
    chat.tools = tools;
    const choice = translateToolChoice(request.tool_choice);
    if (choice !== undefined) chat.tool_choice = choice;
    if (typeof request.parallel_tool_calls === 'boolean') chat.parallel_tool_calls = request.parallel_tool_calls;
  }
  const format = request.text?.format;
  if (format?.type === 'json_object') chat.response_format = { type: 'json_object' };
  if (format?.type === 'json_schema' && 'schema' in format) {
    chat.response_format = {
      type: 'json_schema',
      json_schema: {
        name: format.name,
        schema: format.schema,
        ...(format.description ? { description: format.description } : {}),
        strict: format.strict ?? null,
      },
    };
  }
  if (typeof request.user === 'string') chat.user = request.user;
  return { request: chat, customTools, droppedTools };
}

function translateTools(list: ResponsesTool[], hostedTools: 'drop' | 'reject') {
  const tools: Tool[] = [];
  const customTools = new Set<string>();
  const droppedTools: string[] = [];
  list.forEach((tool, index) => {
    if (tool.type === 'function' && 'name' in tool && typeof tool.name === 'string') {
      const parameters = isRecord(tool.parameters) ? tool.parameters : undefined;
      const description = typeof tool.description === 'string' ? tool.description : undefined;
      const strict = typeof tool.strict === 'boolean' ? tool.strict : undefined;
      tools.push({
        type: 'function',
        function: {
          name: tool.name,
          ...(description ? { description } : {}),
          ...(parameters ? { parameters } : {}),
          ...(strict !== undefined ? { strict } : {}),
        },
      });
    } else if (tool.type === 'custom' && 'name' in tool && typeof tool.name === 'string') {
      customTools.add(tool.name);
      const description = typeof tool.description === 'string' ? tool.description : undefined;
      tools.push({
        type: 'function',
        function: { name: tool.name, ...(description ? { description } : {}), parameters: CUSTOM_TOOL_PARAMETERS },
      });
    } else if (hostedTools === 'reject') {
      throw invalidRequest(
        'unsupported_parameter',
        `The tool type "${tool.type}" runs on OpenAI's servers and this model's provider cannot run it; leave it out of \`tools\`.`,
        `tools[${index}]`,
      );
    } else {
      droppedTools.push(tool.type);
    }
  });
  return { tools, customTools, droppedTools };
}

function translateToolChoice(choice: ResponsesRequest['tool_choice']): ToolChoice | undefined {
  if (choice === null || choice === undefined) return undefined;
  if (typeof choice === 'string') return choice;
  if ((choice.type === 'function' || choice.type === 'custom') && 'name' in choice && typeof choice.name === 'string') {
    return { type: 'function', function: { name: choice.name } };
  }
  // A hosted tool or `allowed_tools`: the model chooses among the tools it has.
  return 'auto';
}

function addItem(messages: Message[], item: InputItem, index: number): void {
  const param = `input[${index}]`;
  const type = 'type' in item && typeof item.type === 'string' ? item.type : 'message';
  switch (type) {
    case 'message': {
      const message = itemOf(messageItem, item, param);
      messages.push(translateMessage(message, param));
      return;
    }
    case 'function_call': {
      const call = itemOf(functionCallItem, item, param);
      addToolCall(messages, { id: call.call_id, type: 'function', function: { name: call.name, arguments: call.arguments } });
      return;
    }
    case 'custom_tool_call': {
      const call = itemOf(customToolCallItem, item, param);
      addToolCall(messages, {
        id: call.call_id,
        type: 'function',
        function: { name: call.name, arguments: JSON.stringify({ input: call.input }) },
      });
      return;
    }
    case 'function_call_output':
    case 'custom_tool_call_output': {
      const output =
        type === 'function_call_output' ? itemOf(functionCallOutputItem, item, param) : itemOf(customToolCallOutputItem, item, param);
      messages.push({ role: 'tool', tool_call_id: output.call_id, content: outputText(output.output, `${param}.output`) });
      return;
    }
    case 'reasoning':
      return;
    case 'item_reference':
      throw invalidRequest(
        'unsupported_parameter',
        'Item references are not supported: this gateway stores no responses. Send the items themselves.',
        param,
      );
    default:
      throw invalidRequest('unsupported_parameter', `Input items of type "${type}" are not supported for this model.`, `${param}.type`);
  }
}

/**
 * The contract lets any item with a `type` through (for pass-through); here each must have its
 * own shape. Checked as request bodies are, compiled first (docs/performance.md), zod deciding
 * and naming the failure.
 */
const messageItem = compileBodySchema(MessageItemSchema);
const functionCallItem = compileBodySchema(FunctionCallItemSchema);
const customToolCallItem = compileBodySchema(CustomToolCallItemSchema);
const functionCallOutputItem = compileBodySchema(FunctionCallOutputItemSchema);
const customToolCallOutputItem = compileBodySchema(CustomToolCallOutputItemSchema);

function itemOf<T>(validate: BodyValidator<T>, item: InputItem, param: string): T {
  const parsed = validate(item);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? `${param}.${issue.path.join('.')}` : param;
  throw invalidRequest('invalid_value', `Invalid input item at ${where}: ${issue?.message ?? 'wrong shape'}.`, where);
}

/** Calls join the assistant message right before them (one chat turn), or start one. */
function addToolCall(messages: Message[], call: ToolCall): void {
  const last = messages[messages.length - 1];
  if (last?.role === 'assistant') {
    last.tool_calls = [...(last.tool_calls ?? []), call];
    return;
  }
  messages.push({ role: 'assistant', content: null, tool_calls: [call] });
}

function translateMessage(item: MessageItem, param: string): Message {
  const { role, content } = item;
  if (role === 'user') {
    if (typeof content === 'string') return { role, content };
    const parts = content.map((part, index) => userPart(part, `${param}.content[${index}]`));
    return { role, content: parts.length > 0 ? parts : '' };
  }
  const text = typeof content === 'string' ? content : content.map((part, index) => textOf(part, `${param}.content[${index}]`)).join('');
  // Chat upstreams other than OpenAI's know `system` but not always `developer`.
  return role === 'assistant' ? { role, content: text } : { role: 'system', content: text };
}

function userPart(part: InputContentPart, param: string): ContentPart {
  if (part.type === 'input_image') {
    const url = 'image_url' in part ? part.image_url : undefined;
    if (typeof url !== 'string' || url === '') {
      throw invalidRequest(
        'unsupported_parameter',
        'Images by `file_id` are not supported for this model; send `image_url` (a URL or a data: URL).',
        param,
      );
    }
    const detail = 'detail' in part ? part.detail : undefined;
    return { type: 'image_url', image_url: { url, ...(detail === 'auto' || detail === 'low' || detail === 'high' ? { detail } : {}) } };
  }
  return { type: 'text', text: textOf(part, param) };
}

function textOf(part: InputContentPart, param: string): string {
  if ((part.type === 'input_text' || part.type === 'output_text') && 'text' in part && typeof part.text === 'string') return part.text;
  if (part.type === 'refusal' && 'refusal' in part && typeof part.refusal === 'string') return part.refusal;
  throw invalidRequest('unsupported_parameter', `Content parts of type "${part.type}" are not supported here for this model.`, param);
}

function outputText(output: string | InputContentPart[], param: string): string {
  if (typeof output === 'string') return output;
  return output.map((part, index) => textOf(part, `${param}[${index}]`)).join('');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
