import { createRequire } from 'node:module';
import type * as GptTokenizer from 'gpt-tokenizer';

type Tokenizer = typeof GptTokenizer;

const require = createRequire(import.meta.url);
let loaded: Tokenizer | null = null;

/**
 * The o200k tokenizer, loaded on first use: its tables cost ~60 MB of memory and a noticeable
 * pause to load, and most deployments never need it (it counts tokens only when a provider reports
 * none; the mock provider, which always does, loads it when it is created).
 */
export function tokenizer(): Tokenizer {
  return (loaded ??= require('gpt-tokenizer') as Tokenizer);
}
