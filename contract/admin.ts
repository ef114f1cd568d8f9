import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { DetailedUsageReportSchema, UsageQuerySchema } from './usage.js';
import { BudgetSchema, BudgetStatusSchema } from './budgets.js';
import { AuditPageSchema, AuditQuerySchema } from './audit.js';
import { errorResponses } from './errors.js';

const c = initContract();

/**
 * What an account owner's dashboard session may reach on an admin route (the operator, by
 * admin token or session, reaches everything): `operator` nothing; `accounts` the list,
 * filtered to its own account; `account` the route's `accountId` when it is its own;
 * `key` the route's `keyId` when the key belongs to its account. Read by the server.
 */
export type AdminScope = 'operator' | 'accounts' | 'account' | 'key';

// Operator routes for the dashboard and automation (docs/keys-and-accounts.md); the request log's too (requests.ts).
export const adminMetadata = <S extends AdminScope>(scope: S, examples?: { request?: unknown; response?: unknown }) =>
  ({ auth: 'admin', scope, ...(examples ? { examples } : {}) }) as const;

const LimitSchema = z.number().int().min(1).max(1_000_000_000);

/**
 * A model allow-list (docs/operator-controls.md): catalogue ids or `prefix*` patterns. Absent
 * or null = every model; an empty list is refused (it would lock the key out of every model:
 * block or revoke it instead).
 */
export const ModelAllowListSchema = z
  .array(
    z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._:/@+-]*\*?$|^\*$/, 'a catalogue model id, or a prefix followed by "*"')
      .max(200),
  )
  .min(1)
  .max(100)
  .describe('Catalogue model ids or "prefix*" patterns; null = every model.');

export const AccountSchema = z
  .object({
    id: z.string().describe("The account's id (`acct_…`)."),
    name: z.string().describe('Its name.'),
    created_at: z.string().describe('ISO 8601 time.'),
    rpm: z.number().int().nullable().describe("Ceiling of every key's requests per minute; null = none."),
    tpm: z.number().int().nullable().describe("Ceiling of every key's tokens per minute; null = none."),
    models: z.array(z.string()).nullable().describe('The models any key of the account may use; null = every model.'),
    budget: BudgetSchema.nullable().describe("The account's spend budget, over all its keys; null = none."),
  })
  .describe('An account: it owns API keys and one usage query key.');
export type Account = z.infer<typeof AccountSchema>;

export const UpdateAccountBodySchema = z
  .object({
    name: z.string().trim().min(1).max(100).optional().describe('Shown in the dashboard and the CLI; 1 to 100 characters.'),
    rpm: LimitSchema.nullable().optional().describe("Ceiling of every key's requests per minute; null = none."),
    tpm: LimitSchema.nullable().optional().describe("Ceiling of every key's tokens per minute; null = none."),
    models: ModelAllowListSchema.nullable().optional(),
    budget: BudgetSchema.nullable().optional().describe("The account's spend budget (operator only); null = none."),
  })
  .describe('What to change; absent fields stay as they are.');
export type UpdateAccountBody = z.infer<typeof UpdateAccountBodySchema>;

export const KeyStatusSchema = z.enum(['ACTIVE', 'REVOKED']).describe('A revoked key is refused for good.');

const SetterSchema = z
  .enum(['operator', 'owner'])
  .nullable()
  .describe('Who set it; null while unset. What the operator set, the owner may tighten but not loosen or remove.');

export const KeySettingsSetBySchema = z
  .object({ rpm: SetterSchema, tpm: SetterSchema, models: SetterSchema, expires_at: SetterSchema, budget: SetterSchema })
  .describe("Who set each of the key's settings.");

export const ApiKeySchema = z
  .object({
    id: z.string().describe("The key's id (`key_…`), not the secret."),
    account_id: z.string().describe('The account it belongs to.'),
    name: z.string().describe('Its name.'),
    hint: z.string().describe('The first and last characters of the key, to recognise it.'),
    status: KeyStatusSchema,
    blocked: z.boolean().describe('A blocked key is refused (403) until unblocked.'),
    rpm: z.number().int().nullable().describe('Requests per minute; null = the configured default.'),
    tpm: z.number().int().nullable().describe('Tokens per minute; null = the configured default.'),
    created_at: z.string().describe('ISO 8601 time.'),
    revoked_at: z.string().nullable().describe('ISO 8601 time; null while active.'),
    blocked_by: z.enum(['operator', 'owner']).nullable().describe("Who blocked the key; an owner cannot lift the operator's block."),
    models: z.array(z.string()).nullable().describe("The models the key may use (within the account's); null = every model."),
    expires_at: z.string().nullable().describe('After this time the key is refused (401 key_expired); null = never.'),
    last_used_at: z.string().nullable().describe('The latest request recorded (written with the usage batches, a few seconds behind).'),
    previous_secret_expires_at: z
      .string()
      .nullable()
      .describe('After a rotation, when the previous secret stops working; null when no previous secret is accepted.'),
    budget: BudgetSchema.nullable().describe("The key's own spend budget (the account's applies too); null = none."),
    set_by: KeySettingsSetBySchema,
  })
  .describe('An LLM API key (`sk-…`) without its secret.');
export type ApiKey = z.infer<typeof ApiKeySchema>;

export const CreatedApiKeySchema = ApiKeySchema.extend({
  key: z.string().describe('The full key. Shown once: only its hash is stored.'),
}).describe('A new API key, with its secret.');
export type CreatedApiKey = z.infer<typeof CreatedApiKeySchema>;

const keyName = z.string().trim().min(1).max(100).describe('A name to recognise the key by; 1 to 100 characters.');
const ExpiresAtSchema = z.string().datetime({ offset: true }).describe('ISO 8601 time, e.g. 2026-12-31T23:59:59Z.');

export const CreateAccountBodySchema = z.object({
  name: z.string().trim().min(1).max(100).describe('Shown in the dashboard and the CLI; 1 to 100 characters.'),
});

export const CreateKeyBodySchema = z
  .object({
    name: keyName,
    rpm: LimitSchema.optional().describe('Requests per minute; the configured default when absent.'),
    tpm: LimitSchema.optional().describe('Tokens per minute; the configured default when absent.'),
    models: ModelAllowListSchema.optional(),
    expires_at: ExpiresAtSchema.optional(),
    budget: BudgetSchema.optional().describe("A spend budget; its amount may not exceed the account's."),
  })
  .describe('A new API key.');
export type CreateKeyBody = z.infer<typeof CreateKeyBodySchema>;

export const UpdateKeyBodySchema = z
  .object({
    name: keyName.optional(),
    rpm: LimitSchema.nullable().optional().describe('Requests per minute; null = back to the configured default.'),
    tpm: LimitSchema.nullable().optional().describe('Tokens per minute; null = back to the configured default.'),
    models: ModelAllowListSchema.nullable().optional(),
    expires_at: ExpiresAtSchema.nullable().optional(),
    budget: BudgetSchema.nullable().optional().describe("The key's spend budget; its amount may not exceed the account's; null = none."),
  })
  .describe('What to change; absent fields stay as they are.');
export type UpdateKeyBody = z.infer<typeof UpdateKeyBodySchema>;

/** The longest grace a rotated-out secret may keep: a week. */
export const MAX_ROTATION_GRACE_SECONDS = 7 * 24 * 3600;

export const RotateKeyBodySchema = z
  .object({
    grace_seconds: z
      .number()
      .int()
      .min(0)
      .max(MAX_ROTATION_GRACE_SECONDS)
      .describe('How long the previous secret keeps working; 0 = it stops at once (a leaked key).'),
  })
  .describe('A rotation.');

export const UsageKeyInfoSchema = z
  .object({
    exists: z.boolean().describe('Whether the account has a usage query key.'),
    hint: z.string().nullable().describe('Its first and last characters; null without a key.'),
    created_at: z.string().nullable().describe('ISO 8601 time; null without a key.'),
  })
  .describe("The account's usage query key, without its secret.");

export const LoginLinkSchema = z
  .object({
    url: z.string().describe('Opens the dashboard signed in to the account, once. Hand it to the account owner.'),
    expires_at: z.string().describe('ISO 8601 time after which the link no longer works.'),
  })
  .describe('A one-time dashboard sign-in link.');
export type LoginLink = z.infer<typeof LoginLinkSchema>;

export const CreatedUsageKeySchema = z
  .object({
    key: z.string().describe('The usage query key (uk-…). Shown once; it replaces the previous one.'),
    hint: z.string().describe('Its first and last characters.'),
    created_at: z.string().describe('ISO 8601 time.'),
  })
  .describe('A new usage query key, with its secret.');

const listOf = <T extends z.ZodTypeAny>(item: T) =>
  z.object({ object: z.literal('list'), data: z.array(item).describe('Every entry, oldest first.') });

const AccountParams = z.object({ accountId: z.string().describe("The account's id (`acct_…`).") });
const KeyParams = z.object({ keyId: z.string().describe("The key's id (`key_…`), not the secret.") });

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
        response: {
          id: 'acct_3kQ9zT2mW8',
          name: 'Acme',
          created_at: '2026-01-01T08:00:00.000Z',
          rpm: null,
          tpm: null,
          models: null,
          budget: null,
        },
      }),
    },
    updateAccount: {
      method: 'PATCH',
      path: '/v1/admin/accounts/:accountId',
      pathParams: AccountParams,
      summary: 'Rename an account or change its ceilings (rpm, tpm, models; null = none)',
      body: UpdateAccountBodySchema,
      responses: { 200: AccountSchema, ...errorResponses },
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
    getAccountBudget: {
      method: 'GET',
      path: '/v1/admin/accounts/:accountId/budget',
      pathParams: AccountParams,
      summary: "The account's spend budget: spent and remaining in the current period, over all its keys",
      responses: { 200: BudgetStatusSchema, ...errorResponses },
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
        request: { name: 'production', rpm: 600, budget: { amount_usd: 50, period: 'month', alert_at: [0.8] } },
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
          blocked_by: null,
          models: null,
          expires_at: null,
          last_used_at: null,
          previous_secret_expires_at: null,
          budget: { amount_usd: 50, period: 'month', alert_at: [0.8] },
          set_by: { rpm: 'operator', tpm: null, models: null, expires_at: null, budget: 'operator' },
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
    getKeyBudget: {
      method: 'GET',
      path: '/v1/admin/keys/:keyId/budget',
      pathParams: KeyParams,
      summary: "The key's spend budget: spent and remaining in the current period",
      responses: { 200: BudgetStatusSchema, ...errorResponses },
      metadata: adminMetadata('key'),
    },
    updateKey: {
      method: 'PATCH',
      path: '/v1/admin/keys/:keyId',
      pathParams: KeyParams,
      summary: "Rename a key or change its limits (null = back to the default; an owner may tighten, not loosen, the operator's)",
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
    rotateKey: {
      method: 'POST',
      path: '/v1/admin/keys/:keyId/rotate',
      pathParams: KeyParams,
      summary: 'Give a key a new secret, keeping its id, limits and usage (the new secret is in this response only)',
      body: RotateKeyBodySchema,
      responses: { 200: CreatedApiKeySchema, ...errorResponses },
      metadata: adminMetadata('key'),
    },
    listAudit: {
      method: 'GET',
      path: '/v1/admin/audit',
      query: AuditQuerySchema,
      summary: "The audit log of state changes, newest first (an owner sees its own account's)",
      responses: { 200: AuditPageSchema, ...errorResponses },
      metadata: adminMetadata('accounts'),
    },
    getUsageKey: {
      method: 'GET',
      path: '/v1/admin/accounts/:accountId/usage-key',
      pathParams: AccountParams,
      summary: 'Whether the account has a usage query key, and its hint',
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
