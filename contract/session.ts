import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { AccountSchema } from './admin.js';
import { errorResponses } from './errors.js';

const c = initContract();

/**
 * The dashboard's sign-in (docs/keys-and-accounts.md: "the admin token (operator) or an account's own
 * dashboard login"). The session lives in an HttpOnly, SameSite=Strict cookie scoped to
 * /v1/admin; requests it authenticates that change anything must also carry CSRF_HEADER.
 */
export const SESSION_COOKIE_NAME = 'mg_session';
export const SESSION_COOKIE_PATH = '/v1/admin';
export const CSRF_HEADER = 'x-csrf-token';

export const SignInBodySchema = z.object({
  token: z
    .string()
    .trim()
    .min(1)
    .max(512)
    .describe("The operator's admin token, or the token of an account's one-time login link (`lt-…`)."),
});
export type SignInBody = z.infer<typeof SignInBodySchema>;

export const DashboardSessionSchema = z
  .object({
    object: z.literal('dashboard.session'),
    role: z.enum(['operator', 'account']).describe('`operator`: every account; `account`: only `account`.'),
    account: AccountSchema.nullable().describe('The account an owner signed in to; null for the operator.'),
    csrf_token: z.string().describe(`Send it as \`${CSRF_HEADER}\` on every POST, PATCH and DELETE authenticated by the cookie.`),
    expires_at: z.string().describe('ISO 8601 time when the session ends.'),
  })
  .describe('A dashboard session.');
export type DashboardSession = z.infer<typeof DashboardSessionSchema>;

export const sessionContract = c.router(
  {
    signIn: {
      method: 'POST',
      path: '/v1/admin/session',
      summary: 'Sign in to the dashboard (sets the session cookie)',
      body: SignInBodySchema,
      responses: { 200: DashboardSessionSchema, ...errorResponses },
      metadata: { auth: 'none' } as const,
    },
    getSession: {
      method: 'GET',
      path: '/v1/admin/session',
      summary: 'The signed-in dashboard session, with its CSRF token',
      responses: { 200: DashboardSessionSchema, ...errorResponses },
      metadata: { auth: 'session' } as const,
    },
    signOut: {
      method: 'DELETE',
      path: '/v1/admin/session',
      summary: 'Sign out (ends the session and clears the cookie)',
      body: c.noBody(),
      responses: { 204: c.noBody(), ...errorResponses },
      metadata: { auth: 'session' } as const,
    },
  },
  { strictStatusCodes: true },
);
