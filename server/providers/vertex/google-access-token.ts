import { GoogleAuth, type gaxios } from 'google-auth-library';
import { UpstreamError } from '../../errors/gateway-error';
import { throwIfAborted, type CallSignal } from '../call-signal';

/** https://cloud.google.com/vertex-ai/docs/authentication: Vertex AI takes the cloud-platform scope. */
export const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

export interface GoogleAccessTokens {
  /**
   * A valid access token. Google's auth library keeps it and fetches the next one once the
   * current one is within five minutes of its expiry; concurrent callers share one fetch.
   */
  token(signal: CallSignal): Promise<string>;
  /** The token last handed out ('' before the first), scrubbed from anything passed on. */
  current(): string;
}

export interface GoogleAccessTokenOptions {
  provider: string;
  /** A service-account key file; absent: Application Default Credentials. */
  credentialsFile?: string | undefined;
  /** The HTTP client of the auth library's token requests; its own by default. */
  transporter?: gaxios.Gaxios | undefined;
}

/**
 * Access tokens from Google's auth library (docs/vertex.md, "Credentials"): a service-account
 * key file (signed JWT exchanged at the key's `token_uri`), else Application Default
 * Credentials: GOOGLE_APPLICATION_CREDENTIALS, workload identity federation, or the metadata
 * server of the machine the gateway runs on.
 */
export function createGoogleAccessTokens(options: GoogleAccessTokenOptions): GoogleAccessTokens {
  const auth = new GoogleAuth({
    scopes: [CLOUD_PLATFORM_SCOPE],
    ...(options.credentialsFile !== undefined ? { keyFilename: options.credentialsFile } : {}),
    ...(options.transporter !== undefined ? { clientOptions: { transporter: options.transporter } } : {}),
  });
  let last = '';
  async function fetchToken(): Promise<string> {
    let token: string | null | undefined;
    try {
      token = await auth.getAccessToken();
    } catch (error) {
      throw tokenError(options.provider, error);
    }
    if (!token) throw tokenError(options.provider, null);
    last = token;
    return token;
  }
  return {
    token: (signal) => untilAborted(fetchToken(), signal),
    current: () => last,
  };
}

/** The request stops waiting when it is cancelled; the fetch itself goes on and serves the next one. */
function untilAborted<T>(pending: Promise<T>, signal: CallSignal): Promise<T> {
  throwIfAborted(signal);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new DOMException('This operation was aborted', 'AbortError'));
    signal.addEventListener('abort', onAbort, { once: true });
    pending.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/**
 * The library's message is not passed on: it may quote the key file (a JSON parse error shows
 * its first characters). The token endpoint's HTTP status is, when there is one.
 */
function tokenError(provider: string, error: unknown): UpstreamError {
  const status = httpStatusOf(error);
  const detail =
    status === null ? 'no credentials could be loaded or the token endpoint was not reached' : `the token endpoint answered HTTP ${status}`;
  return new UpstreamError('unavailable', `The provider "${provider}" could not get a Google access token: ${detail}.`, {
    // A refusal of the credentials stays a refusal; an unreachable endpoint may come back.
    retryable: status === null || status === 429 || status >= 500,
  });
}

function httpStatusOf(error: unknown): number | null {
  if (typeof error !== 'object' || error === null) return null;
  const response = (error as { response?: unknown }).response;
  if (typeof response !== 'object' || response === null) return null;
  const status = (response as { status?: unknown }).status;
  return typeof status === 'number' ? status : null;
}
