import { initClient } from '@ts-rest/core';
import { contract } from './index';

export interface GatewayClientOptions {
  /** The gateway's address without `/v1`, e.g. `http://localhost:8080`. */
  baseUrl: string;
  /** An `sk-` key for models, a `uk-` key for the usage report, or the admin token. */
  apiKey?: string;
  /** Extra headers sent with every request. */
  headers?: Record<string, string>;
  /** fetch's `credentials`: the dashboard sends its session cookie with `same-origin`. */
  credentials?: 'omit' | 'same-origin' | 'include';
}

/**
 * The typed client for TypeScript consumers: every route of the contract, with typed
 * bodies and responses (`{ status, body, headers }`). Streaming chat is not decoded by
 * this client; use the `openai` package for that.
 */
export function createGatewayClient(options: GatewayClientOptions) {
  const headers: Record<string, string> = { ...options.headers };
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  return initClient(contract, {
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    baseHeaders: headers,
    throwOnUnknownStatus: false,
    ...(options.credentials ? { credentials: options.credentials } : {}),
  });
}

export type GatewayClient = ReturnType<typeof createGatewayClient>;
