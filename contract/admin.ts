import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { DetailedUsageReportSchema, UsageQuerySchema } from './usage.js';
import { errorResponses } from './errors.js';

const c = initContract();

/**
 * What an account owner's dashboard session may reach on an admin route (the operator, by
 * admin token or session, reaches everything): `operator` nothing; `accounts` the list,
 * filtered to its own account; `account` the route's `accountId` when it is its own;
 * `key` the route's `keyId` when the key belongs to its account. Read by the server.
 */
export type AdminScope = 'operator' | 'accounts' | 'account' | 'key';

// Operator routes for the dashboard and automation; docs/keys-and-accounts.md.
const adminMetadata = <S extends AdminScope>(scope: S, examples?: { request?: unknown; response?: unknown }) =>
  ({ auth: 'admin', scope, ...(examples ? { examples } : {}) }) as const;

export const AccountSchema = z
  .object({
    id: z.string().describe('The account\'s id (`acct_…`).'),
    name: z.string().describe('Its name.'),
    created_at: z.string().describe('ISO 8601 time.'),
  })
  .describe('An account: it owns API keys and one usage query key.');
export type Account = z.infer<typeof AccountSchema>;

export const KeyStatusSchema = z.enum(['ACTIVE', 'REVOKED']).describe('A revoked key is refused for good.');

export const ApiKeySchema = z.object({
  id: z.string().describe('The key\'s id (`key_…`), not the secret.'),
  account_id: z.string().describe('The account it belongs to.'),
  name: z.string().describe('Its name.'),
  hint: z.string().describe('The first and last characters of the key, to recognise it.'),
  status: KeyStatusSchema,
  blocked: z.boolean().describe('A blocked key is refused (403) until unblocked.'),
  rpm: z.number().int().nullable().describe('Requests per minute; null = the configured default.'),
  tpm: z.number().int().nullable().describe('Tokens per minute; null = the configured default.'),
  created_at: z.string().describe('ISO 8601 time.'),
  revoked_at: z.string().nullable().describe('ISO 8601 time; null while active.'),
}).describe('An LLM API key (`sk-…`) without its secret.');
export type ApiKey = z.infer<typeof ApiKeySchema>;

export const CreatedApiKeySchema = ApiKeySchema.extend({
  key: z.string().describe('The full key. Shown once: only its hash is stored.'),
}).describe('A new API key, with its secret.');
export type CreatedApiKey = z.infer<typeof CreatedApiKeySchema>;

const LimitSchema = z.number().int().min(1).max(1_000_000_000);
const keyName = z.string().trim().min(1).max(100).describe('A name to recognise the key by; 1 to 100 characters.');

export const CreateAccountBodySchema = z.object({ name: z.string().trim().min(1).max(100).describe('Shown in the dashboard and the CLI; 1 to 100 characters.') });

export const CreateKeyBodySchema = z
  .object({
    name: keyName,
    rpm: LimitSchema.optional().describe('Requests per minute; the configured default when absent.'),
    tpm: LimitSchema.optional().describe('Tokens per minute; the configured default when absent.'),
  })
  .describe('A new API key.');

export const UpdateKeyBodySchema = z
  .object({
    name: keyName.optional(),
    rpm: LimitSchema.nullable().optional().describe('Requests per minute; null = back to the configured default.'),
    tpm: LimitSchema.nullable().optional().describe('Tokens per minute; null = back to the configured default.'),
  })
  .describe('What to change; absent fields stay as they are.');

export const UsageKeyInfoSchema = z.object({
  exists: z.boolean().describe('Whether the account has a usage query key.'),
  hint: z.string().nullable().describe('Its first and last characters; null without a key.'),
  created_at: z.string().nullable().describe('ISO 8601 time; null without a key.'),
}).describe('The account\'s usage query key, without its secret.');

export const LoginLinkSchema = z.object({
  url: z.string().describe('Opens the dashboard signed in to the account, once. Hand it to the account owner.'),
  expires_at: z.string().describe('ISO 8601 time after which the link no longer works.'),
}).describe('A one-time dashboard sign-in link.');
export type LoginLink = z.infer<typeof LoginLinkSchema>;

export const CreatedUsageKeySchema = z.object({
  key: z.string().describe('The usage query key (uk-…). Shown once; it replaces the previous one.'),
  hint: z.string().describe('Its first and last characters.'),
  created_at: z.string().describe('ISO 8601 time.'),
}).describe('A new usage query key, with its secret.');

const listOf = <T extends z.ZodTypeAny>(item: T) => z.object({ object: z.literal('list'), data: z.array(item).describe('Every entry, oldest first.') });

const AccountParams = z.object({ accountId: z.string().describe('The account\'s id (`acct_…`).') });
const KeyParams = z.object({ keyId: z.string().describe('The key\'s id (`key_…`), not the secret.') });

export const adminContract = c.router(
  {
    listAccounts: {
      method: 'GET',
      path: '/v1/admin/accounts',
      summary: 'List accounts',
      responses: { 200: listOf(AccountSchema), ...errorResponses },
      metadata: adminMetadata('accounts'),
    },
    createAccount: {
      method: 'POST',
      path: '/v1/admin/accounts',
      summary: 'Create an account',
      body: CreateAccountBodySchema,
      responses: { 201: AccountSchema, ...errorResponses },
      metadata: adminMetadata('operator', {
        request: { name: 'Acme' },
        response: { id: 'acct_3kQ9zT2mW8', name: 'Acme', created_at: '2026-01-01T08:00:00.000Z' },
      }),
    },
    getAccount: {
      method: 'GET',
      path: '/v1/admin/accounts/:accountId',
      pathParams: AccountParams,
      summary: 'Get an account',
      responses: { 200: AccountSchema, ...errorResponses },
      metadata: adminMetadata('account'),
    },
    listKeys: {
      method: 'GET',
      path: '/v1/admin/accounts/:accountId/keys',
      pathParams: AccountParams,
      summary: "List an account's API keys",
      responses: { 200: listOf(ApiKeySchema), ...errorResponses },
      metadata: adminMetadata('account'),
    },
    createKey: {
      method: 'POST',
      path: '/v1/admin/accounts/:accountId/keys',
      pathParams: AccountParams,
      summary: 'Create an API key (the full key is in this response only)',
      body: CreateKeyBodySchema,
      responses: { 201: CreatedApiKeySchema, ...errorResponses },
      metadata: adminMetadata('account', {
        request: { name: 'production', rpm: 600 },
        response: {
          id: 'key_7Hc2pQ4rS1',
          account_id: 'acct_3kQ9zT2mW8',
          name: 'production',
          hint: 'sk-Ab…9xYz',
          status: 'ACTIVE',
          blocked: false,
          rpm: 600,
          tpm: null,
          created_at: '2026-01-01T08:05:00.000Z',
          revoked_at: null,
          key: 'sk-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefgh9xYz',
        },
      }),
    },
    getKey: {
      method: 'GET',
      path: '/v1/admin/keys/:keyId',
      pathParams: KeyParams,
      summary: 'Get an API key',
      responses: { 200: ApiKeySchema, ...errorResponses },
      metadata: adminMetadata('key'),
    },
    updateKey: {
      method: 'PATCH',
      path: '/v1/admin/keys/:keyId',
      pathParams: KeyParams,
      summary: 'Rename a key or change its limits (null = back to the default)',
      body: UpdateKeyBodySchema,
      responses: { 200: ApiKeySchema, ...errorResponses },
      metadata: adminMetadata('key'),
    },
    revokeKey: {
      method: 'POST',
      path: '/v1/admin/keys/:keyId/revoke',
      pathParams: KeyParams,
      summary: 'Revoke a key (final)',
      body: c.noBody(),
      responses: { 200: ApiKeySchema, ...errorResponses },
      metadata: adminMetadata('key'),
    },
    blockKey: {
      method: 'POST',
      path: '/v1/admin/keys/:keyId/block',
      pathParams: KeyParams,
      summary: 'Block an active key (403 until unblocked)',
      body: c.noBody(),
      responses: { 200: ApiKeySchema, ...errorResponses },
      metadata: adminMetadata('key'),
    },
    unblockKey: {
      method: 'POST',
      path: '/v1/admin/keys/:keyId/unblock',
      pathParams: KeyParams,
      summary: 'Unblock an active key',
      body: c.noBody(),
      responses: { 200: ApiKeySchema, ...errorResponses },
      metadata: adminMetadata('key'),
    },
    getUsageKey: {
      method: 'GET',
      path: '/v1/admin/accounts/:accountId/usage-key',
      pathParams: AccountParams,
      summary: "Whether the account has a usage query key, and its hint",
      responses: { 200: UsageKeyInfoSchema, ...errorResponses },
      metadata: adminMetadata('account'),
    },
    createUsageKey: {
      method: 'POST',
      path: '/v1/admin/accounts/:accountId/usage-key',
      pathParams: AccountParams,
      summary: 'Generate the usage query key (replaces the previous one)',
      body: c.noBody(),
      responses: { 201: CreatedUsageKeySchema, ...errorResponses },
      metadata: adminMetadata('account'),
    },
    createLoginLink: {
      method: 'POST',
      path: '/v1/admin/accounts/:accountId/login-link',
      pathParams: AccountParams,
      summary: "A one-time dashboard login link for the account's owner",
      body: c.noBody(),
      responses: { 201: LoginLinkSchema, ...errorResponses },
      metadata: adminMetadata('operator'),
    },
    getUsage: {
      method: 'GET',
      path: '/v1/admin/accounts/:accountId/usage',
      pathParams: AccountParams,
      query: UsageQuerySchema,
      summary: "The account's usage report: GET /v1/usage/keys's, with the token breakdown and a per-model split per key",
      responses: { 200: DetailedUsageReportSchema, ...errorResponses },
      metadata: adminMetadata('account'),
    },
  },
  { strictStatusCodes: true },
);
