import { initServer } from '@ts-rest/express';
import { contract } from '../../contract';
import type { ChatDependencies } from '../completions/chat-completion';
import { createEmbeddings } from '../completions/embeddings';
import { apiKeyOf } from './chat-completions';

const s = initServer();

export function embeddingsRouter(dependencies: ChatDependencies) {
  return s.router(contract.embeddings, {
    create: async ({ body, res }) => ({
      status: 200,
      body: await createEmbeddings(dependencies, { body, key: apiKeyOf(res), requestId: String(res.locals.requestId), response: res }),
    }),
  });
}
