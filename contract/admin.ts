import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { DetailedUsageReportSchema, UsageQuerySchema } from './usage';
import { errorResponses } from './errors';

const c = initContract();

/**
 * What an account owner's dashboard session may reach on an admin route (the operator, by
 * admin token or session, reaches everything): `operator` nothing; `accounts` the list,
 * filtered to its own account; `account` the route's `accountId` when it is its own;
 * `key` the route's `keyId` when the key belongs to its account. Read by the server.
 */
export type AdminScope = 'operator' | 'accounts' | 'account' | 'key';

// Operator routes for the dashboard and automation; decisions.md §6.
const adminMetadata = <S extends AdminScope>(scope: S) => ({ auth: 'admin', scope }) as const;

export const AccountSchema = z.object({ id: z.string(), name: z.string(), created_at: z.string() });
export type Account = z.infer<typeof AccountSchema>;

export const KeyStatusSchema = z.enum(['ACTIVE', 'REVOKED']);

export const ApiKeySchema = z.object({
  id: z.string(),
  account_id: z.string(),
  name: z.string(),
  hint: z.string(),
  status: KeyStatusSchema,
  blocked: z.boolean(),
  rpm: z.number().int().nullable().describe('Requests per minute; null = the configured default.'),
  tpm: z.number().int().nullable().describe('Tokens per minute; null = the configured default.'),
  created_at: z.string(),
  revoked_at: z.string().nullable(),
});
export type ApiKey = z.infer<typeof ApiKeySchema>;

export const CreatedApiKeySchema = ApiKeySchema.extend({
  key: z.string().describe('The full key. Shown once: only its hash is stored.'),
});
export type CreatedApiKey = z.infer<typeof CreatedApiKeySchema>;

const LimitSchema = z.number().int().min(1).max(1_000_000_000);

export const CreateKeyBodySchema = z.object({
  name: z.string().trim().min(1).max(100),
  rpm: LimitSchema.optional(),
  tpm: LimitSchema.optional(),
});

export const UpdateKeyBodySchema = z.object({
  name: z.string().trim().min(1).max(100).optional(),
  rpm: LimitSchema.nullable().optional(),
  tpm: LimitSchema.nullable().optional(),
});

export const UsageKeyInfoSchema = z.object({
  exists: z.boolean(),
  hint: z.string().nullable(),
  created_at: z.string().nullable(),
});

export const LoginLinkSchema = z.object({
  url: z.string().describe('Opens the dashboard signed in to the account, once. Hand it to the account owner.'),
  expires_at: z.string(),
});
export type LoginLink = z.infer<typeof LoginLinkSchema>;

export const CreatedUsageKeySchema = z.object({
  key: z.string().describe('The usage query key (uk-…). Shown once; it replaces the previous one.'),
  hint: z.string(),
  created_at: z.string(),
});

const listOf = <T extends z.ZodTypeAny>(item: T) => z.object({ object: z.literal('list'), data: z.array(item) });

const AccountParams = z.object({ accountId: z.string() });
const KeyParams = z.object({ keyId: z.string() });

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
      body: z.object({ name: z.string().trim().min(1).max(100) }),
      responses: { 201: AccountSchema, ...errorResponses },
      metadata: adminMetadata('operator'),
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
      metadata: adminMetadata('account'),
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
