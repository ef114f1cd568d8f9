import { expect } from 'vitest';
import type { TestGateway } from '../helpers/test-gateway';

export interface TestSession {
  /** `mg_session=…`, for a Cookie header. */
  cookie: string;
  csrf: string;
  body: Record<string, unknown>;
}

/** The session token in a sign-in response's Set-Cookie. */
export function sessionTokenOf(response: { headers: Record<string, unknown> }): string {
  const cookie = String(response.headers['set-cookie']);
  const token = /^mg_session=([0-9A-Za-z]+);/.exec(cookie)?.[1];
  if (!token) throw new Error(`no session cookie in ${cookie}`);
  return token;
}

/** Signs in through POST /v1/admin/session with the admin token or a login-link token. */
export async function signIn(gw: TestGateway, token: string): Promise<TestSession> {
  const response = await gw.http.post('/v1/admin/session').send({ token });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  const cookie = String(response.headers['set-cookie']).split(';')[0] ?? '';
  return { cookie, csrf: (response.body as { csrf_token: string }).csrf_token, body: response.body as Record<string, unknown> };
}

/** Signs an account's owner in through a login link the operator made for the account. */
export async function signInAsOwner(gw: TestGateway, accountId: string): Promise<TestSession> {
  const link = await gw.http.post(`/v1/admin/accounts/${accountId}/login-link`).set(gw.admin());
  return signIn(gw, String(link.body.url).split('#token=')[1] ?? '');
}
