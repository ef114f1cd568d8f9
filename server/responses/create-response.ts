import type { ChatCompletionRequest, ResponseObject, ResponsesRequest } from '../../contract';
import { runChatCall, type ChatDependencies } from '../completions/chat-call';
import { relayChunks } from '../completions/chunk-relay';
import { passesThrough } from '../completions/admission';
import { resolveModel } from '../completions/resolve-model';
import { GatewayError, invalidRequest } from '../errors/gateway-error';
import type { ModelCall } from '../pipeline/model-pipeline';
import type { RequestContext } from '../pipeline/request-context';
import { reasoningFromEffort } from '../providers/reasoning';
import { fromChatUsage } from '../providers/token-usage';
import { chatToResponse, responseSkeleton, showsReasoning } from './chat-to-response';
import { RESPONSES_FIELDS, runPassThrough } from './pass-through-call';
import { ResponseStreamTranslator } from './response-stream';
import { responsesToChat, type ChatTranslation } from './responses-to-chat';

export interface ResponsesDependencies extends ChatDependencies {
  generateId: () => string;
}

/**
 * POST /v1/responses (docs/openai-responses.md). Stateless checks, then one of two paths, by
 * the model's provider: `responses_api: true` -> the upstream's own /responses, the body and
 * reply passed through (pass-through-call.ts); otherwise the request translated to chat and
 * run as the chat call every chat-like route runs (limits, meter, fallbacks), its reply or
 * chunk stream rendered as a response object or Responses events. Returns the response
 * object to send, or null when the reply is already under way.
 */
export async function createResponse(
  dependencies: ResponsesDependencies,
  call: ModelCall<ResponsesRequest>,
): Promise<ResponseObject | null> {
  const { body, context, reply } = call;
  checkStateless(body);
  const model = resolveModel(dependencies.catalogue, body.model, 'chat');
  // docs/openai-responses.md: the fallbacks of a passed-through call serve the Responses API too.
  if (passesThrough(dependencies, model, 'responses')) return runPassThrough(dependencies, { ...call, estimate: estimateRequest(body) });
  const translation = responsesToChat(body, dependencies.config.providers[model.provider]?.responsesHostedTools ?? 'drop');

  announceDroppedTools(context, translation);
  const result = await runChatCall(dependencies, {
    body: translation.request,
    key: call.key,
    context,
    client: reply,
    fields: RESPONSES_FIELDS,
    reasoning: reasoningFromEffort(body.reasoning?.effort),
  });
  if (!result.stream) {
    const { completion } = result;
    // The whole usage, cached and reasoning tokens included (docs/openai-responses.md).
    return chatToResponse(body, completion, fromChatUsage(completion.usage), translation.customTools, dependencies);
  }
  const skeleton = responseSkeleton(
    body,
    `resp_${dependencies.generateId()}`,
    result.chunks.model.id,
    Math.floor(dependencies.now() / 1000),
  );
  const translator = new ResponseStreamTranslator(skeleton, translation.customTools, dependencies.generateId, showsReasoning(body));
  relayChunks(reply, result.chunks, translator);
  return null;
}

/** Nothing is stored (docs/openai-responses.md): what would need a stored response is refused by name. */
function checkStateless(body: ResponsesRequest): void {
  if (body.previous_response_id) {
    throw invalidRequest(
      'unsupported_parameter',
      'previous_response_id is not supported: this gateway stores no responses. Send the whole conversation in `input`.',
      'previous_response_id',
    );
  }
  if (Array.isArray(body.input)) {
    body.input.forEach((item, index) => {
      if ('type' in item && item.type === 'item_reference') {
        throw invalidRequest(
          'unsupported_parameter',
          'Item references are not supported: this gateway stores no responses. Send the items themselves.',
          `input[${index}]`,
        );
      }
    });
  }
}

/**
 * The chat request whose token estimate stands for a passed-through request (the limits'
 * reservation, the count when the upstream reports no usage). Whatever the upstream accepts
 * goes through: what the translation would refuse is estimated from its JSON text instead.
 */
function estimateRequest(body: ResponsesRequest): ChatCompletionRequest {
  try {
    return responsesToChat(body, 'drop').request;
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    return { model: body.model, messages: [{ role: 'user', content: JSON.stringify(body.input) }] };
  }
}

/** `x-gateway-dropped-tools` on every reply to the request, and the access log's `droppedTools`. */
function announceDroppedTools(context: RequestContext, translation: ChatTranslation): void {
  if (translation.droppedTools.length === 0) return;
  const names = [...new Set(translation.droppedTools)].join(', ');
  context.addHeaders({ 'x-gateway-dropped-tools': names });
  context.droppedTools = names;
}
