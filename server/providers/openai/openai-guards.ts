import { compileBodySchema } from '../../pipeline/compiled-schema';
import { OpenAiChatCompletionSchema, OpenAiChunkSchema, OpenAiEmbeddingsSchema } from './openai-schemas';

/**
 * The hot upstream schemas (openai-schemas.ts) with the compiled fast path the request bodies
 * have (pipeline/compiled-schema.ts): zod's parse of every chat completion, stream chunk and
 * embedding (each of its floats) is what it saves. A value the compiled check accepts is one
 * its schema accepts, and is used as it is, unknown keys included: the adapters read only the
 * schema's fields. Anything else goes through zod, which decides and describes the failure.
 */
export const parseOpenAiChatCompletion = compileBodySchema(OpenAiChatCompletionSchema, { unknownKeys: 'kept' });

export const parseOpenAiChunk = compileBodySchema(OpenAiChunkSchema, { unknownKeys: 'kept' });

export const parseOpenAiEmbeddings = compileBodySchema(OpenAiEmbeddingsSchema, { unknownKeys: 'kept' });
