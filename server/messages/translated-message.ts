import type { ChatCompletionChunk, ChatCompletionRequest } from '../../contract';
import type { Attempt } from '../completions/resolve-model';
import { toGatewayError } from '../completions/to-gateway-error';
import { toMessagesErrorBody } from '../errors/anthropic-error-body';
import { isAbortError } from '../providers/http-client';
import type { ChatStream } from '../providers/types';
import { sendSse } from '../streaming/send-sse';
import { countTextTokens, promptTokenCounter, quickPromptTokens } from '../usage/count-tokens';
import { chatToMessage } from './chat-to-message';
import type { MessageCallContext, MessageReply } from './create-message';
import { MessageStreamTranslator, event } from './message-stream-events';

/**
 * POST /v1/messages to a model whose upstream does not speak Messages: the request translated
 * to the chat core's (messages-to-chat.ts), the reply or chunks translated back
 * (chat-to-message.ts, message-stream-events.ts). Usage as the upstream reported it, else the
 * gateway's count (flagged estimated), as on the chat route.
 */
export async function translatedMessage(context: MessageCallContext, chat: ChatCompletionRequest, attempts: readonly Attempt[]): Promise<MessageReply> {
  const { call, meter, dependencies } = context;
  const promptEstimate = promptTokenCounter(chat);
  const options = { signal: context.controller.signal, requestId: call.requestId };
  const id = `msg_${dependencies.generateId()}`;

  if (!context.stream) {
    const { value, attempt } = await context.callUpstream(attempts, (entry) => entry.adapter.chat(chat, entry.target, options));
    const completion = value.completion;
    const usage = value.usage ?? {
      promptTokens: promptEstimate(),
      completionTokens: completion.choices.reduce((sum, choice) => sum + countTextTokens(choice.message.content ?? ''), 0),
    };
    completion.model = attempt.model.id;
    meter.finish({ model: attempt.model, ...usage, estimated: value.usage === null, status: 200, errorCode: null });
    return { json: JSON.stringify(chatToMessage(completion, usage, id)) };
  }

  const { value: stream, attempt } = await context.callUpstream(attempts, (entry) => entry.adapter.chatStream(chat, entry.target, options));
  const translator = new MessageStreamTranslator({ id, model: attempt.model.id, inputTokens: quickPromptTokens(chat) });
  sendSse(call.response, streamEvents(context, stream, attempt, translator, promptEstimate), () => context.controller.abort());
  return null;
}

async function* streamEvents(
  context: MessageCallContext,
  stream: ChatStream,
  attempt: Attempt,
  translator: MessageStreamTranslator,
  promptEstimate: () => number,
): AsyncGenerator<string> {
  let text = '';
  let status = 200;
  let errorCode: string | null = null;
  let ended = false;
  const eventsOf = (chunk: ChatCompletionChunk): string => {
    for (const choice of chunk.choices) {
      if (choice.delta.content) text += choice.delta.content;
      for (const call of choice.delta.tool_calls ?? []) text += call.function?.arguments ?? '';
    }
    return translator.push(chunk);
  };
  const billed = () => translator.reportedUsage ?? { promptTokens: promptEstimate(), completionTokens: countTextTokens(text) };
  try {
    yield translator.start();
    if (stream.batches) {
      for await (const batch of stream.batches) {
        let events = '';
        for (const chunk of batch) events += eventsOf(chunk);
        if (events !== '') yield events;
      }
    } else {
      for await (const chunk of stream.chunks) {
        const events = eventsOf(chunk);
        if (events !== '') yield events;
      }
    }
    ended = true;
    yield translator.finish(billed());
  } catch (error) {
    ended = true;
    if (isAbortError(error)) {
      status = 499;
      errorCode = 'client_closed_request';
      return;
    }
    const gatewayError = toGatewayError(error, context.call.requestId, false);
    status = gatewayError.status;
    errorCode = gatewayError.code;
    yield event(toMessagesErrorBody(gatewayError));
  } finally {
    if (!ended && status === 200) {
      status = 499;
      errorCode = 'client_closed_request';
    }
    context.meter.finish({ model: attempt.model, ...billed(), estimated: translator.reportedUsage === null, status, errorCode });
  }
}
