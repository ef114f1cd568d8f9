import type {
  ChatCompletionRequest,
  ContentPart,
  Message,
  MessageParam,
  MessagesContentBlockParam,
  MessagesKnownBlockParam,
  MessagesRequest,
  MessagesTool,
  MessagesToolChoice,
  Tool,
  ToolChoice,
} from '../../contract';
import { isKnownBlockParam } from '../../contract/messages';
import { invalidRequest } from '../errors/gateway-error';
import { effortForBudget } from '../providers/reasoning';
import type { ReasoningRequest } from '../providers/types';

/**
 * An Anthropic Messages request -> the gateway's chat request, for upstreams that do not speak
 * Messages (openai, gemini, mock). The reverse of server/providers/anthropic/build-anthropic-request.ts.
 * Messages: https://platform.claude.com/docs/en/api/messages
 * Chat:     https://platform.openai.com/docs/api-reference/chat/create
 *
 * | Messages                                      | chat                                                |
 * |-----------------------------------------------|-----------------------------------------------------|
 * | system (string or text blocks), role: system  | one leading system message (texts joined by a blank line) |
 * | text / image (base64, url) blocks             | text / image_url parts (base64 as a data: URL)      |
 * | assistant tool_use blocks                     | assistant tool_calls (input serialised as arguments)|
 * | user tool_result blocks                       | tool messages, before the rest of the user turn     |
 * | tools (custom)                                | tools[].function {name, description, parameters}    |
 * | tool_choice auto / any / tool / none          | auto / required / {function: {name}} / none         |
 * | disable_parallel_tool_use: true               | parallel_tool_calls: false                          |
 * | max_tokens, stop_sequences, temperature, top_p| max_tokens, stop, temperature, top_p                |
 * | stream                                        | stream + stream_options.include_usage               |
 * | thinking (messagesReasoning)                  | the call's reasoning: effort and budget (server/providers/reasoning.ts) |
 *
 * Left out, not refused (docs/anthropic-messages.md): cache_control, metadata, top_k,
 * context_management, output_config and other beta fields, thinking blocks of earlier turns,
 * server tools (web search, …) and blocks the chat format has no place for (documents,
 * server tool results).
 */
export function messagesToChat(request: MessagesRequest, stream: boolean): ChatCompletionRequest {
  const systemTexts: string[] = [];
  const system = request.system;
  if (typeof system === 'string') pushText(systemTexts, system);
  else if (system) for (const block of system) pushText(systemTexts, block.text);

  const messages: Message[] = [];
  request.messages.forEach((message, index) => {
    if (message.role === 'system') pushText(systemTexts, textOf(message.content));
    else if (message.role === 'user') messages.push(...userMessages(message, index));
    else {
      const assistant = assistantMessage(message);
      if (assistant) messages.push(assistant);
    }
  });
  if (systemTexts.length > 0) messages.unshift({ role: 'system', content: systemTexts.join('\n\n') });

  const chat: ChatCompletionRequest = { model: request.model, messages, max_tokens: request.max_tokens };
  const stop = request.stop_sequences ?? [];
  if (stop.length > 4) throw invalidRequest('invalid_value', 'This model accepts at most 4 stop sequences.', 'stop_sequences');
  if (stop.length > 0) chat.stop = stop;
  if (request.temperature !== undefined) chat.temperature = request.temperature;
  if (request.top_p !== undefined) chat.top_p = request.top_p;

  const tools = (request.tools ?? []).flatMap(toChatTool);
  if (tools.length > 0) {
    chat.tools = tools;
    if (request.tool_choice) Object.assign(chat, toChatToolChoice(request.tool_choice));
  }
  if (stream) {
    chat.stream = true;
    chat.stream_options = { include_usage: true };
  }
  return chat;
}

/**
 * `thinking` in the chat core's terms (docs/anthropic-messages.md, "Thinking"): `enabled` is its
 * budget and the effort of that budget, `adaptive` leaves the amount to the model, `disabled`
 * (or none) asks for nothing, so the upstream model reasons as it does by default.
 */
export function messagesReasoning(request: MessagesRequest): ReasoningRequest | undefined {
  const thinking = request.thinking;
  if (!thinking || thinking.type === 'disabled') return undefined;
  if (thinking.type === 'adaptive') return {};
  if (thinking.type === 'enabled' && 'budget_tokens' in thinking) {
    const budgetTokens = thinking.budget_tokens;
    return { effort: effortForBudget(budgetTokens), budgetTokens };
  }
  return undefined;
}

function pushText(texts: string[], text: string): void {
  if (text.length > 0) texts.push(text);
}

function textOf(content: MessageParam['content']): string {
  if (typeof content === 'string') return content;
  return content.flatMap((block) => (isKnownBlockParam(block) && block.type === 'text' ? [block.text] : [])).join('\n');
}

/** One user turn: its tool results as tool messages first (they answer the previous turn), then its other content. */
function userMessages(message: MessageParam, index: number): Message[] {
  if (typeof message.content === 'string') return [{ role: 'user', content: message.content }];
  const toolMessages: Message[] = [];
  const parts: ContentPart[] = [];
  message.content.forEach((block, blockIndex) => {
    const param = `messages[${index}].content[${blockIndex}]`;
    if (!isKnownBlockParam(block)) return;
    if (block.type === 'tool_result') {
      const result = toolResult(block, param);
      toolMessages.push({ role: 'tool', tool_call_id: block.tool_use_id, content: result.text });
      // A tool message carries text only: images a tool returned follow in the user turn.
      parts.push(...result.images);
      return;
    }
    const part = contentPart(block, param);
    if (part) parts.push(part);
  });
  if (parts.length === 0) return toolMessages;
  const onlyText = parts.every((part) => part.type === 'text');
  const content = onlyText ? parts.map((part) => (part.type === 'text' ? part.text : '')).join('\n') : parts;
  return [...toolMessages, { role: 'user', content }];
}

function contentPart(block: MessagesContentBlockParam, param: string): ContentPart | null {
  if (!isKnownBlockParam(block)) return null;
  if (block.type === 'text') return block.text.length > 0 ? { type: 'text', text: block.text } : null;
  if (block.type === 'image') {
    const source = block.source;
    if (source.type === 'base64') return { type: 'image_url', image_url: { url: `data:${source.media_type};base64,${source.data}` } };
    if (source.type === 'url') return { type: 'image_url', image_url: { url: source.url } };
    throw invalidRequest(
      'invalid_value',
      'Images given as a file id need an Anthropic-type model; send base64 or url sources.',
      `${param}.source`,
    );
  }
  return null;
}

function toolResult(
  block: Extract<MessagesKnownBlockParam, { type: 'tool_result' }>,
  param: string,
): { text: string; images: ContentPart[] } {
  const content = block.content;
  const error = block.is_error === true;
  if (content === undefined) return { text: error ? 'Error' : '', images: [] };
  if (typeof content === 'string') return { text: content, images: [] };
  const texts: string[] = [];
  const images: ContentPart[] = [];
  content.forEach((item, itemIndex) => {
    const part = contentPart(item, `${param}.content[${itemIndex}]`);
    if (part?.type === 'text') texts.push(part.text);
    else if (part) images.push(part);
  });
  return { text: texts.join('\n'), images };
}

function assistantMessage(message: MessageParam): Message | null {
  if (typeof message.content === 'string') return message.content.length > 0 ? { role: 'assistant', content: message.content } : null;
  const texts: string[] = [];
  const toolCalls: NonNullable<Extract<Message, { role: 'assistant' }>['tool_calls']> = [];
  for (const block of message.content) {
    if (!isKnownBlockParam(block)) continue;
    if (block.type === 'text') pushText(texts, block.text);
    else if (block.type === 'tool_use') {
      toolCalls.push({ id: block.id, type: 'function', function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } });
    }
  }
  if (texts.length === 0 && toolCalls.length === 0) return null;
  return {
    role: 'assistant',
    content: texts.length > 0 ? texts.join('') : null,
    ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
  };
}

/** Client tools translate; server tools (`web_search_20250305`, …) run only on Anthropic and are left out. */
function toChatTool(tool: MessagesTool): Tool[] {
  if (!('input_schema' in tool) || (tool.type !== undefined && tool.type !== 'custom')) return [];
  const custom = tool as { name: string; description?: string; input_schema: Record<string, unknown> };
  return [
    {
      type: 'function',
      function: { name: custom.name, ...(custom.description ? { description: custom.description } : {}), parameters: custom.input_schema },
    },
  ];
}

function toChatToolChoice(choice: MessagesToolChoice): { tool_choice: ToolChoice; parallel_tool_calls?: boolean } {
  const parallel = 'disable_parallel_tool_use' in choice && choice.disable_parallel_tool_use === true ? { parallel_tool_calls: false } : {};
  switch (choice.type) {
    case 'auto':
      return { tool_choice: 'auto', ...parallel };
    case 'any':
      return { tool_choice: 'required', ...parallel };
    case 'tool':
      return { tool_choice: { type: 'function', function: { name: choice.name } }, ...parallel };
    case 'none':
      return { tool_choice: 'none' };
  }
}
