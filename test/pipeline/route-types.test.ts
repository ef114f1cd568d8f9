import { describe, expect, expectTypeOf, it } from 'vitest';
import { contract, type ChatCompletion, type CountTokensResponse, type EmbeddingsResponse } from '../../contract';
import type { MessagesResponse, ResponseObject } from '../../contract';
import { createChatCompletion } from '../../server/completions/chat-completion';
import { createEmbeddings } from '../../server/completions/embeddings';
import { countMessageTokens, createMessage } from '../../server/messages/create-message';
import { openAiErrorFormat } from '../../server/pipeline/error-formats';
import { modelRoute } from '../../server/pipeline/model-pipeline';
import { createResponse } from '../../server/responses/create-response';

/**
 * The model routes' handlers are typed from the contract (docs/architecture.md, "Request path"):
 * each returns its route's 200 body or null, and a handler returning another shape fails `tsc -p .`
 * (the `@ts-expect-error` lines below fail it if the wrong shape were accepted).
 */
describe('model route handlers typed from the contract', () => {
  it('each handler returns the 200 body its contract entry declares, or null (a stream)', () => {
    expectTypeOf(createChatCompletion).returns.resolves.toEqualTypeOf<ChatCompletion | null>();
    expectTypeOf(createEmbeddings).returns.resolves.toEqualTypeOf<EmbeddingsResponse>();
    expectTypeOf(createResponse).returns.resolves.toEqualTypeOf<ResponseObject | null>();
    expectTypeOf(createMessage).returns.resolves.toEqualTypeOf<MessagesResponse | null>();
    expectTypeOf(countMessageTokens).returns.resolves.toEqualTypeOf<CountTokensResponse>();
  });

  it('a route whose handler returns another shape than its 200 does not type-check', () => {
    const wrong = [
      modelRoute({
        contract: contract.messages.countTokens,
        // @ts-expect-error count_tokens answers `{ input_tokens }`
        handle: () => Promise.resolve({ tokens: 12 }),
        errorFormat: openAiErrorFormat,
      }),
      modelRoute({
        contract: contract.embeddings.create,
        // @ts-expect-error an embeddings route cannot answer with a count
        handle: () => Promise.resolve({ input_tokens: 12 }),
        errorFormat: openAiErrorFormat,
      }),
    ];
    const right = modelRoute({
      contract: contract.messages.countTokens,
      handle: () => Promise.resolve({ input_tokens: 12 }),
      errorFormat: openAiErrorFormat,
    });
    expect([...wrong, right].map((route) => route.contract.path)).toEqual([
      '/v1/messages/count_tokens',
      '/v1/embeddings',
      '/v1/messages/count_tokens',
    ]);
  });
});
