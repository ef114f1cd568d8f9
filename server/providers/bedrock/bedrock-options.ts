import { z } from 'zod';
import { parseProviderOptions } from '../provider-options';

/**
 * `providers.<name>.options` of a `bedrock` provider (docs/bedrock.md); strict so that a
 * misspelt option fails at start. The endpoint follows from the region
 * (https://docs.aws.amazon.com/general/latest/gr/bedrock.html, "Amazon Bedrock Runtime APIs")
 * unless the provider sets `base_url` (a VPC endpoint, a proxy, a test server).
 */
export const BedrockOptionsSchema = z
  .object({
    /** The AWS region requests are sent to and signed for, e.g. `us-east-1`. */
    region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d+$/, 'must be an AWS region such as us-east-1'),
    /** A named profile of the shared AWS config and credentials files; absent: the default chain's choice. */
    profile: z.string().min(1).optional(),
  })
  .strict();
export type BedrockOptions = z.infer<typeof BedrockOptionsSchema>;

export function parseBedrockOptions(provider: string, options: Record<string, unknown> | undefined): BedrockOptions {
  return parseProviderOptions(BedrockOptionsSchema, 'bedrock', provider, options);
}

/** The Bedrock Runtime endpoint of a region. */
export function bedrockEndpoint(region: string): string {
  return `https://bedrock-runtime.${region}.amazonaws.com`;
}
