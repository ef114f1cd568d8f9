import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import {
  MOCK_ACCESS_KEY_ID,
  MOCK_API_KEY,
  MOCK_SECRET_ACCESS_KEY,
  startMockBedrockUpstream,
  type MockBedrockUpstream,
} from '../helpers/mock-bedrock-upstream';
import { upstreamSection, useUpstreamE2e } from './helpers';

/**
 * The set-up of the bedrock e2e tests (bedrock-path.test.ts, bedrock-messages.test.ts): a
 * local Bedrock that verifies every Signature V4 signature, and a gateway whose credentials
 * come from AWS's default chain as in production: the environment for `aws`, a profile of the
 * shared credentials file (with a wrong secret) for `aws-wrong`, a Bedrock API key for `aws-key`.
 */
export const CLAUDE = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
export const WRONG_SECRET = 'WrongSecretWrongSecretWrongSecret0123456';

/**
 * The usage event of a claude-bedrock reply of 100 input, 50 output, 400 cache-read and 300
 * cache-write tokens: 100 x 3 + 50 x 15 + 400 x 0.3 + 300 x 3.75 = 2,295 USD per million tokens.
 */
export const CACHED_CLAUDE_EVENT = {
  model: 'claude-bedrock',
  promptTokens: 800,
  completionTokens: 50,
  cachedTokens: 400,
  cacheWriteTokens: 300,
  costFemtoUsd: 2_295_000_000_000n,
};

export const CONFIG = (upstream: MockBedrockUpstream) => `${upstreamSection()}
providers:
  aws: { type: bedrock, base_url: ${upstream.baseUrl}, options: { region: us-east-1 } }
  aws-key: { type: bedrock, base_url: ${upstream.baseUrl}, api_key_env: E2E_BEDROCK_API_KEY, options: { region: us-east-1 } }
  aws-wrong: { type: bedrock, base_url: ${upstream.baseUrl}, options: { region: us-east-1, profile: wrong } }
models:
  - id: claude-bedrock
    provider: aws
    upstream_model: ${CLAUDE}
    capabilities: [chat, vision, function_calling, json_mode]
    context_window: 200000
    max_output_tokens: 8192
    pricing: { input_per_million: 3, output_per_million: 15, cache_read_per_million: 0.3, cache_write_per_million: 3.75 }
  - id: nova
    provider: aws-key
    upstream_model: amazon.nova-pro-v1:0
    capabilities: [chat]
    context_window: 300000
    pricing: { input_per_million: 0.8, output_per_million: 3.2 }
  - id: claude-wrong
    provider: aws-wrong
    upstream_model: ${CLAUDE}
    capabilities: [chat]
    context_window: 200000
    pricing: { input_per_million: 3, output_per_million: 15 }
  - id: titan-embed
    provider: aws
    upstream_model: amazon.titan-embed-text-v2:0
    capabilities: [embeddings]
    dimensions: [256, 512, 1024]
    context_window: 8192
    pricing: { input_per_million: 0.02, output_per_million: 0 }
  - id: cohere-embed
    provider: aws
    upstream_model: cohere.embed-english-v3
    capabilities: [embeddings]
    context_window: 512
    pricing: { input_per_million: 0.1, output_per_million: 0 }
`;

const AWS_VARIABLES = [
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_PROFILE',
  'AWS_SHARED_CREDENTIALS_FILE',
  'AWS_CONFIG_FILE',
  'AWS_EC2_METADATA_DISABLED',
];

/**
 * For the enclosing describe: the AWS environment (restored after it), the mock and the
 * gateway; `env`: more of the gateway's environment (test/tracing turns traces on with it).
 */
export function useBedrockE2e(env: Record<string, string> = {}) {
  // AWS's default chain reads the process environment and files, as in production.
  const saved = new Map(AWS_VARIABLES.map((name) => [name, process.env[name]]));
  const directory = mkdtempSync(join(tmpdir(), 'bedrock-e2e-'));
  beforeAll(() => {
    writeFileSync(
      join(directory, 'credentials'),
      `[wrong]\naws_access_key_id = ${MOCK_ACCESS_KEY_ID}\naws_secret_access_key = ${WRONG_SECRET}\n`,
    );
    for (const name of AWS_VARIABLES) delete process.env[name];
    Object.assign(process.env, {
      AWS_ACCESS_KEY_ID: MOCK_ACCESS_KEY_ID,
      AWS_SECRET_ACCESS_KEY: MOCK_SECRET_ACCESS_KEY,
      AWS_SHARED_CREDENTIALS_FILE: join(directory, 'credentials'),
      AWS_CONFIG_FILE: join(directory, 'config'),
      AWS_EC2_METADATA_DISABLED: 'true',
    });
  });
  afterAll(() => {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    rmSync(directory, { recursive: true, force: true });
  });
  return useUpstreamE2e(() => startMockBedrockUpstream(), CONFIG, { env: { E2E_BEDROCK_API_KEY: MOCK_API_KEY, ...env } });
}

/** A Messages API reply as Claude on Bedrock sends it. */
export function claudeMessage(usage: Record<string, number>) {
  return {
    id: 'msg_bdrk_01',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5-20250929',
    content: [{ type: 'text', text: 'Hi from Bedrock.' }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage,
  };
}
