import type { Response as SupertestResponse } from 'supertest';
import { expect } from 'vitest';
import { BASE_TEST_CONFIG, type TestGateway } from '../helpers/test-gateway';

/**
 * Shared by the HTTP-level usage report tests: a settable clock, report requests, and exact
 * decimal handling of `spend_usd` (read from the response text, never through a double).
 */

/** Chat limits out of the way, and usage-route limits high enough for many report calls. */
export const REPORT_TEST_CONFIG = `${BASE_TEST_CONFIG}
limits: { default_rpm: 1000000, default_tpm: 1000000000, usage_key_rpm: 100000, usage_ip_rpm: 100000, admin_auth_failures_per_minute: 100000 }
`;

/** mock-text's prices (REPORT_TEST_CONFIG) in nano-dollars per million tokens: 0.0375 and 0.15 USD. */
export const MOCK_TEXT_PRICES = { input: 37_500_000n, output: 150_000_000n };
/** mock-chat's prices: 1.5 and 2.25 USD per million. */
export const MOCK_CHAT_PRICES = { input: 1_500_000_000n, output: 2_250_000_000n };

/** The gateway's clock: requests are received at whatever instant it is set to. */
export class TestClock {
  private instant: number;

  constructor(iso: string) {
    this.instant = Date.parse(iso);
  }

  readonly now = (): number => this.instant;

  set(iso: string): void {
    const instant = Date.parse(iso);
    if (Number.isNaN(instant)) throw new Error(`not an instant: ${iso}`);
    this.instant = instant;
  }

  advance(ms: number): void {
    this.instant += ms;
  }
}

export interface SpendCounts {
  spend_usd: string;
  requests: number;
  prompt_tokens: number;
  completion_tokens: number;
}

/** The report as the tests read it: every `spend_usd` kept as the JSON number's exact text. */
export interface ExactReport {
  object: string;
  start: string;
  end: string;
  timezone: string;
  keys: Array<{
    name: string;
    hint: string;
    status: string;
    blocked: boolean;
    created_at: string;
    total: SpendCounts;
    daily: Array<SpendCounts & { date: string }>;
  }>;
}

export function report(gw: TestGateway, usageKey: string | null, query: Record<string, string> = {}) {
  const request = gw.http.get('/v1/usage/keys').query(query);
  return usageKey === null ? request : request.set('authorization', `Bearer ${usageKey}`);
}

/** GET /v1/usage/keys expecting 200; spend values as their JSON text. */
export async function exactReport(gw: TestGateway, usageKey: string, query: Record<string, string> = {}): Promise<ExactReport> {
  await gw.gateway.recorder?.flush();
  const response = await report(gw, usageKey, query);
  if (response.status !== 200) throw new Error(`usage report answered ${response.status}: ${response.text}`);
  return parseExactReport(response.text);
}

/**
 * JSON.parse would turn `"spend_usd":0.1234567890` into the nearest double; the test needs
 * the digits the server wrote, so each spend number is quoted before parsing.
 */
export function parseExactReport(text: string): ExactReport {
  const quoted = text.replace(/"spend_usd":(-?[0-9][0-9.eE+-]*)/g, '"spend_usd":"$1"');
  return JSON.parse(quoted) as ExactReport;
}

/** A JSON number's text (`0.1`, `1.5e-7`, `12`) as exact nano-dollars; throws past 9 decimals. */
export function decimalToNano(text: string): bigint {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!match) throw new Error(`not a JSON number: ${text}`);
  const [, sign, whole = '', fraction = '', exponentText] = match;
  const exponent = Number(exponentText ?? '0');
  // digits * 10^(exponent - fraction.length) USD = digits * 10^(9 + exponent - fraction.length) nano
  const digits = BigInt(whole + fraction);
  const shift = 9 + exponent - fraction.length;
  let nano: bigint;
  if (shift >= 0) nano = digits * 10n ** BigInt(shift);
  else {
    const divisor = 10n ** BigInt(-shift);
    if (digits % divisor !== 0n) throw new Error(`${text} has more than 9 decimals`);
    nano = digits / divisor;
  }
  return sign === '-' ? -nano : nano;
}

/** Femto-dollars rounded half up to nano-dollars (docs/usage-report.md: at most 9 decimals). */
export function femtoToNano(femto: bigint): bigint {
  return (femto + 500_000n) / 1_000_000n;
}

export function costFemto(prices: { input: bigint; output: bigint }, promptTokens: number, completionTokens: number): bigint {
  return BigInt(promptTokens) * prices.input + BigInt(completionTokens) * prices.output;
}

export async function chat(gw: TestGateway, key: string, body: Record<string, unknown>): Promise<SupertestResponse> {
  return await gw.http.post('/v1/chat/completions').set('authorization', `Bearer ${key}`).send(body);
}

/** One non-streamed chat request received at `iso`; returns the usage the client saw. */
export async function chatAt(
  gw: TestGateway,
  clock: TestClock,
  key: string,
  iso: string,
  content = 'hello there',
  model = 'mock-chat',
): Promise<{ prompt_tokens: number; completion_tokens: number }> {
  clock.set(iso);
  const response = await chat(gw, key, { model, messages: [{ role: 'user', content }] });
  if (response.status !== 200) throw new Error(`chat answered ${response.status}: ${response.text}`);
  return (response.body as { usage: { prompt_tokens: number; completion_tokens: number } }).usage;
}

export async function revokeKey(gw: TestGateway, keyId: string): Promise<void> {
  await gw.http.post(`/v1/admin/keys/${keyId}/revoke`).set(gw.admin()).expect(200);
}

export async function blockKey(gw: TestGateway, keyId: string): Promise<void> {
  await gw.http.post(`/v1/admin/keys/${keyId}/block`).set(gw.admin()).expect(200);
}

export function expectedError(code: string, param: string | null) {
  return { error: { message: expect.any(String), type: 'invalid_request_error', code, param } };
}
