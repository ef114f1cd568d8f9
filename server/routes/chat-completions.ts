import { initServer } from '@ts-rest/express';
import type { Response } from 'express';
import { contract, type ChatCompletion } from '../../contract';
import { createChatCompletion, type ChatDependencies } from '../completions/chat-completion';
import type { Principal } from '../middleware/authenticate';
import type { CachedApiKey } from '../keys/key-cache';

const s = initServer();

export function apiKeyOf(response: Response): CachedApiKey {
  const principal = response.locals.principal as Principal | undefined;
  if (principal?.kind !== 'api-key') throw new Error('model route reached without an API key');
  return principal.key;
}

export function chatRouter(dependencies: ChatDependencies) {
  return s.router(contract.chat, {
    create: async ({ body, res }) => {
      const result = await createChatCompletion(dependencies, {
        body,
        key: apiKeyOf(res),
        requestId: String(res.locals.requestId),
        response: res,
      });
      // ts-rest pipes a Readable body (the SSE stream) instead of serialising it; the
      // contract's 200 schema describes the JSON reply, the SSE form is documented beside it.
      return { status: 200, body: result as ChatCompletion };
    },
  });
}
