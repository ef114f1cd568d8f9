import { initContract } from '@ts-rest/core';
import { adminContract } from './admin';
import { chatCompletionsContract } from './chat-completions';
import { embeddingsContract } from './embeddings';
import { healthContract } from './health';
import { messagesContract } from './messages';
import { modelsContract } from './models';
import { responsesContract } from './responses';
import { sessionContract } from './session';
import { usageContract } from './usage';

const c = initContract();

/** The one contract: the server, the typed client and the OpenAPI document all come from it. */
export const contract = c.router({
  chat: chatCompletionsContract,
  embeddings: embeddingsContract,
  responses: responsesContract,
  messages: messagesContract,
  models: modelsContract,
  usage: usageContract,
  admin: adminContract,
  session: sessionContract,
  health: healthContract,
});
export type Contract = typeof contract;

/**
 * How a route authenticates; read from route metadata by the server and the OpenAPI generator.
 * `admin`: the admin token, or a dashboard session cookie (see `AdminScope` for what an
 * account owner's session may reach); `session`: the dashboard session cookie only.
 */
export type RouteAuth = 'api-key' | 'usage-key' | 'admin' | 'session' | 'none';

export * from './admin';
export * from './chat-completions';
export * from './embeddings';
export * from './errors';
export * from './health';
export * from './messages';
export * from './models';
export * from './responses';
export * from './session';
export * from './usage';
