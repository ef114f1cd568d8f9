import type { AccessToken, TokenCredential } from '@azure/identity';
import { UpstreamError } from '../../errors/gateway-error';

/** The scope of Azure OpenAI's data plane (docs/azure.md, "Microsoft Entra ID"). */
export const COGNITIVE_SERVICES_SCOPE = 'https://cognitiveservices.azure.com/.default';

/** A token is renewed this long before it expires at the latest (half its lifetime for shorter ones). */
const RENEW_BEFORE_EXPIRY_MS = 5 * 60_000;
/** Closer to its expiry than this, a token is not sent: the request waits for a fresh one. */
const EXPIRY_MARGIN_MS = 30_000;

export interface BearerTokenSource {
  /** A valid access token; obtained from the credential only when the cached one is due. */
  token(): Promise<string>;
}

/**
 * One Entra access token per provider, shared by its requests: obtained on first use, renewed
 * in the background once due (the credential's `refreshAfterTimestamp`, else shortly before
 * expiry) while the current one is still sent, and awaited only when none is valid. Requests
 * never wait for the identity platform except the first and after a failed renewal; one
 * renewal runs at a time.
 */
export function createCachedTokenSource(credential: TokenCredential, provider: string, now: () => number): BearerTokenSource {
  let current: { token: string; renewAt: number; expiresAt: number } | null = null;
  let renewal: Promise<string> | null = null;

  function renew(): Promise<string> {
    renewal ??= obtain().finally(() => {
      renewal = null;
    });
    return renewal;
  }

  async function obtain(): Promise<string> {
    const obtainedAt = now();
    let token: AccessToken | null;
    try {
      token = await credential.getToken(COGNITIVE_SERVICES_SCOPE);
    } catch (error) {
      // The credential's own message may name the identity or tenant: kept as the cause, not shown.
      throw tokenUnavailable(provider, error);
    }
    if (!token) throw tokenUnavailable(provider, null);
    const lifetime = Math.max(0, token.expiresOnTimestamp - obtainedAt);
    const renewAt = token.refreshAfterTimestamp ?? token.expiresOnTimestamp - Math.min(RENEW_BEFORE_EXPIRY_MS, lifetime / 2);
    current = { token: token.token, renewAt, expiresAt: token.expiresOnTimestamp };
    return token.token;
  }

  return {
    async token() {
      const time = now();
      if (current && time < current.renewAt) return current.token;
      if (current && time < current.expiresAt - EXPIRY_MARGIN_MS) {
        // Due but still valid: sent as it is while the next one is obtained; a failed renewal
        // is tried again by the next request.
        renew().catch(() => undefined);
        return current.token;
      }
      return renew();
    },
  };
}

function tokenUnavailable(provider: string, cause: unknown): UpstreamError {
  return new UpstreamError('unavailable', `The provider "${provider}" could not obtain a Microsoft Entra access token.`, {
    retryable: true,
    cause,
  });
}
