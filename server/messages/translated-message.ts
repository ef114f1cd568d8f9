import type { MessagesResponse } from '../../contract';
import { runChatCall } from '../completions/chat-call';
import { relayChunks } from '../completions/chunk-relay';
import { fromChatUsage } from '../providers/token-usage';
import type { ReservationFields } from '../rate-limit/key-limiter';
import { quickPromptTokens } from '../usage/count-tokens';
import { chatToMessage } from './chat-to-message';
import type { MessagesCall, MessagesDependencies } from './create-message';
import { MessageStreamTranslator } from './message-stream-events';
import { messagesReasoning, messagesToChat } from './messages-to-chat';

/** What the 400 of a request that can never fit the key's tokens per minute names (docs/operator-controls.md). */
export const MESSAGES_FIELDS: ReservationFields = { prompt: 'messages', completion: 'max_tokens' };

/**
 * POST /v1/messages to a model whose upstream does not speak Messages: the request translated
 * to a chat request (messages-to-chat.ts) and run as the chat route's call (chat-call.ts:
 * limits, fallbacks, stream slots, usage once), the reply or chunks translated back
 * (chat-to-message.ts, message-stream-events.ts).
 */
export async function translatedMessage(dependencies: MessagesDependencies, call: MessagesCall): Promise<MessagesResponse | null> {
  const stream = call.body.stream === true;
  const chat = messagesToChat(call.body, stream);
  const result = await runChatCall(dependencies, {
    body: chat,
    key: call.key,
    context: call.context,
    client: call.reply,
    fields: MESSAGES_FIELDS,
    reasoning: messagesReasoning(call.body),
  });
  const id = `msg_${dependencies.generateId()}`;
  if (!result.stream) {
    // The whole usage, cached tokens included (docs/anthropic-messages.md, "Other models: translated").
    return chatToMessage(result.completion, fromChatUsage(result.completion.usage), id);
  }
  const translator = new MessageStreamTranslator({ id, model: result.chunks.model.id, inputTokens: quickPromptTokens(chat) });
  relayChunks(call.reply, result.chunks, translator);
  return null;
}
