import { initContract } from '@ts-rest/core';
import { adminContract } from './admin.js';
import { chatCompletionsContract } from './chat-completions.js';
import { deploymentsContract } from './deployments.js';
import { embeddingsContract } from './embeddings.js';
import { healthContract } from './health.js';
import { messagesContract } from './messages.js';
import { modelsContract } from './models.js';
import { requestsContract } from './requests.js';
import { responsesContract } from './responses.js';
import { sessionContract } from './session.js';
import { usageContract } from './usage.js';

const c = initContract();

/**
 * The contract's type, spelled by reference to each resource's router: inferred whole, it is
 * too large for TypeScript to write into the client package's declarations.
 */
export type Contract = {
  chat: typeof chatCompletionsContract;
  embeddings: typeof embeddingsContract;
  responses: typeof responsesContract;
  messages: typeof messagesContract;
  models: typeof modelsContract;
  usage: typeof usageContract;
  admin: typeof adminContract;
  requests: typeof requestsContract;
  deployments: typeof deploymentsContract;
  session: typeof sessionContract;
  health: typeof healthContract;
};

/** The one contract: the server, the typed client and the OpenAPI document all come from it. */
export const contract: Contract = c.router({
  chat: chatCompletionsContract,
  embeddings: embeddingsContract,
  responses: responsesContract,
  messages: messagesContract,
  models: modelsContract,
  usage: usageContract,
  admin: adminContract,
  requests: requestsContract,
  deployments: deploymentsContract,
  session: sessionContract,
  health: healthContract,
});

/**
 * How a route authenticates; read from route metadata by the server and the OpenAPI generator.
 * `admin`: the admin token, or a dashboard session cookie (see `AdminScope` for what an
 * account owner's session may reach); `session`: the dashboard session cookie only.
 */
export type RouteAuth = 'api-key' | 'usage-key' | 'admin' | 'session' | 'none';

export * from './admin.js';
export * from './audit.js';
export * from './budgets.js';
export * from './chat-completions.js';
export * from './deployments.js';
export * from './embeddings.js';
export * from './errors.js';
export * from './health.js';
export * from './messages.js';
export * from './models.js';
export * from './requests.js';
export * from './responses.js';
export * from './session.js';
export * from './usage.js';
