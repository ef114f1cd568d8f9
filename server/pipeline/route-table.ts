import { contract } from '../../contract';
import { createChatCompletion } from '../completions/chat-completion';
import { createEmbeddings } from '../completions/embeddings';
import { countMessageTokens, createMessage, type MessagesDependencies } from '../messages/create-message';
import { createResponse, type ResponsesDependencies } from '../responses/create-response';
import { anthropicErrorFormat, openAiErrorFormat } from './error-formats';
import { modelRoute, type ModelRoute } from './model-pipeline';

/**
 * The model routes (docs/architecture.md, "Request path"): each is its contract entry, its
 * handler and its error format; a new one is one more entry here and its handler.
 */
export function modelRouteTable(dependencies: MessagesDependencies & ResponsesDependencies): readonly ModelRoute[] {
  return [
    modelRoute({
      contract: contract.chat.create,
      handle: (call) => createChatCompletion(dependencies, call),
      errorFormat: openAiErrorFormat,
    }),
    modelRoute({
      contract: contract.embeddings.create,
      handle: ({ body, key, context, reply }) => createEmbeddings(dependencies, { body, key, context, client: reply }),
      errorFormat: openAiErrorFormat,
    }),
    modelRoute({
      contract: contract.responses.create,
      handle: (call) => createResponse(dependencies, call),
      // OpenAI's Responses API errors have the same envelope as its other routes.
      errorFormat: openAiErrorFormat,
    }),
    modelRoute({
      contract: contract.messages.create,
      handle: (call) => createMessage(dependencies, call),
      errorFormat: anthropicErrorFormat,
      acceptsXApiKey: true,
    }),
    modelRoute({
      contract: contract.messages.countTokens,
      handle: (call) => countMessageTokens(dependencies, call),
      errorFormat: anthropicErrorFormat,
      acceptsXApiKey: true,
    }),
  ];
}
