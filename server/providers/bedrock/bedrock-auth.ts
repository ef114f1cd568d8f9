import { fromNodeProviderChain } from '@aws-sdk/credential-providers';
import { memoize } from '@smithy/core/config';
import { Hash } from '@smithy/core/serde';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import { UpstreamError } from '../../errors/gateway-error';

/**
 * How the Bedrock adapter authenticates (docs/bedrock.md, "Credentials"), with AWS's own
 * libraries:
 * - a Bedrock API key (`api_key_env`): `Authorization: Bearer <key>`
 *   (https://docs.aws.amazon.com/bedrock/latest/userguide/api-keys-use.html);
 * - otherwise Signature Version 4 (@smithy/signature-v4, service `bedrock`) with the
 *   credentials of AWS's default chain (@aws-sdk/credential-providers `fromNodeProviderChain`:
 *   environment, shared config and credentials files, web identity, container and instance
 *   metadata). Credentials are kept until five minutes before they expire, then fetched anew
 *   once for all waiting requests: signing costs no network round trip per request. A chain
 *   that finds no credentials is not run again for every request (it may wait on the instance
 *   metadata service each time): its failure is kept for a while, and requests fail at once.
 */
export interface BedrockAuthOptions {
  provider: string;
  region: string;
  /** The Bedrock API key; empty: Signature V4. */
  apiKey: string;
  /** A shared-config profile for the default chain. */
  profile?: string | undefined;
  /** Replaces the default chain (tests inject one with an expiry). */
  credentials?: AwsCredentialIdentityProvider | undefined;
  now: () => number;
}

export interface SignableRequest {
  url: URL;
  headers: Record<string, string>;
  body: string;
}

export type BedrockAuth = (request: SignableRequest) => Promise<Record<string, string>>;

/** Credentials this close to their expiry are fetched anew (the AWS SDK's own margin). */
const REFRESH_MARGIN_MS = 5 * 60_000;
/** How long a chain that found no credentials is taken at its word before it is run again. */
export const EMPTY_CHAIN_RETRY_MS = 30_000;

export function createBedrockAuth(options: BedrockAuthOptions): BedrockAuth {
  if (options.apiKey !== '') {
    const authorization = `Bearer ${options.apiKey}`;
    return (request) => Promise.resolve({ ...request.headers, authorization });
  }
  const chain = options.credentials ?? fromNodeProviderChain(options.profile ? { profile: options.profile } : {});
  const credentials = memoize(
    keepingFailure(chain, options.now),
    (identity: AwsCredentialIdentity) =>
      identity.expiration !== undefined && identity.expiration.getTime() - options.now() < REFRESH_MARGIN_MS,
    (identity: AwsCredentialIdentity) => identity.expiration !== undefined,
  );
  const signer = new SignatureV4({ service: 'bedrock', region: options.region, credentials, sha256: Hash.bind(null, 'sha256') });

  return async (request) => {
    let signed;
    try {
      signed = await signer.sign(
        {
          method: 'POST',
          protocol: request.url.protocol,
          hostname: request.url.hostname,
          ...(request.url.port ? { port: Number(request.url.port) } : {}),
          path: request.url.pathname,
          query: {},
          // The HTTP client sends this same Host header, from the URL.
          headers: { ...request.headers, host: request.url.host },
          body: request.body,
        },
        { signingDate: new Date(options.now()) },
      );
    } catch (error) {
      // The chain's own messages name files and variables, never secrets; they are still not
      // passed on to the client, only the fact.
      throw new UpstreamError('unavailable', `The provider "${options.provider}" has no usable AWS credentials.`, {
        retryable: false,
        cause: error,
      });
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(signed.headers)) {
      if (name.toLowerCase() !== 'host') headers[name] = value;
    }
    return headers;
  };
}

/** `source`, whose rejection is given again without calling it for EMPTY_CHAIN_RETRY_MS. */
function keepingFailure(source: AwsCredentialIdentityProvider, now: () => number): AwsCredentialIdentityProvider {
  let failure: { error: unknown; until: number } | null = null;
  return async () => {
    if (failure !== null && now() < failure.until) throw failure.error;
    try {
      const identity = await source();
      failure = null;
      return identity;
    } catch (error) {
      failure = { error, until: now() + EMPTY_CHAIN_RETRY_MS };
      throw error;
    }
  };
}
