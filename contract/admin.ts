import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { UsageQuerySchema, UsageReportSchema } from './usage';
import { errorResponses } from './errors';

const c = initContract();

/**
 * What an account owner's dashboard session may reach on an admin route (the operator, by
 * admin token or session, reaches everything): `operator` nothing; `accounts` the list,
 * filtered to its own account; `account` the route's `accountId` when it is its own;
 * `key` the route's `keyId` when the key belongs to its account. Read by the server.
 */
export type AdminScope = 'operator' | 'accounts' | 'account' | 'key';

// Operator routes for the dashboard and automation; docs/keys-and-accounts.md.
const adminMetadata = <S extends AdminScope>(scope: S) => ({ auth: 'admin', scope }) as const;

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

export const AccountSchema = z.object({
  id: z.string(),
  name: z.string(),
  created_at: z.string(),
  rpm: z.number().int().nullable().describe("Ceiling of every key's requests per minute; null = none."),
  tpm: z.number().int().nullable().describe("Ceiling of every key's tokens per minute; null = none."),
  models: z.array(z.string()).nullable().describe('The models any key of the account may use; null = every model.'),
});
export type Account = z.infer<typeof AccountSchema>;

export const UpdateAccountBodySchema = z.object({
  name: z.string().trim().min(1).max(100).optional(),
  rpm: LimitSchema.nullable().optional(),
  tpm: LimitSchema.nullable().optional(),
  models: ModelAllowListSchema.nullable().optional(),
});
export type UpdateAccountBody = z.infer<typeof UpdateAccountBodySchema>;

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
  blocked_by: z.enum(['operator', 'owner']).nullable().describe("Who blocked the key; an owner cannot lift the operator's block."),
  models: z.array(z.string()).nullable().describe('The models the key may use (within the account\'s); null = every model.'),
  expires_at: z.string().nullable().describe('After this time the key is refused (401 key_expired); null = never.'),
  last_used_at: z.string().nullable().describe('The latest request recorded (written with the usage batches, a few seconds behind).'),
  previous_secret_expires_at: z
    .string()
    .nullable()
    .describe('After a rotation, when the previous secret stops working; null when no previous secret is accepted.'),
});
export type ApiKey = z.infer<typeof ApiKeySchema>;

export const CreatedApiKeySchema = ApiKeySchema.extend({
  key: z.string().describe('The full key. Shown once: only its hash is stored.'),
});
export type CreatedApiKey = z.infer<typeof CreatedApiKeySchema>;

const ExpiresAtSchema = z.string().datetime({ offset: true }).describe('ISO 8601 time, e.g. 2026-12-31T23:59:59Z.');

export const CreateKeyBodySchema = z.object({
  name: z.string().trim().min(1).max(100),
  rpm: LimitSchema.optional(),
  tpm: LimitSchema.optional(),
  models: ModelAllowListSchema.optional(),
  expires_at: ExpiresAtSchema.optional(),
});
export type CreateKeyBody = z.infer<typeof CreateKeyBodySchema>;

export const UpdateKeyBodySchema = z.object({
  name: z.string().trim().min(1).max(100).optional(),
  rpm: LimitSchema.nullable().optional(),
  tpm: LimitSchema.nullable().optional(),
  models: ModelAllowListSchema.nullable().optional(),
  expires_at: ExpiresAtSchema.nullable().optional(),
});
export type UpdateKeyBody = z.infer<typeof UpdateKeyBodySchema>;

/** The longest grace a rotated-out secret may keep: a week. */
export const MAX_ROTATION_GRACE_SECONDS = 7 * 24 * 3600;

export const RotateKeyBodySchema = z.object({
  grace_seconds: z
    .number()
    .int()
    .min(0)
    .max(MAX_ROTATION_GRACE_SECONDS)
    .describe('How long the previous secret keeps working; 0 = it stops at once (a leaked key).'),
});

export const AuditEntrySchema = z.object({
  id: z.string(),
  at: z.string(),
  actor: z.enum(['operator', 'owner']),
  account_id: z.string().nullable(),
  action: z.string().describe('e.g. key.create, key.update, key.block, key.rotate, account.update.'),
  target_id: z.string(),
  before: z.record(z.unknown()).nullable().describe('The object before the change (never a secret); null for a creation.'),
  after: z.record(z.unknown()).nullable(),
  request_id: z.string().nullable(),
});
export type AuditEntry = z.infer<typeof AuditEntrySchema>;

export const AuditQuerySchema = z.object({
  account_id: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
  cursor: z.string().max(200).optional().describe('`next_cursor` of the previous page.'),
});

export const AuditPageSchema = z.object({
  object: z.literal('list'),
  data: z.array(AuditEntrySchema),
  next_cursor: z.string().nullable().describe('Pass as `cursor` for older entries; null on the last page.'),
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
    updateAccount: {
      method: 'PATCH',
      path: '/v1/admin/accounts/:accountId',
      pathParams: AccountParams,
      summary: "Rename an account or change its ceilings (rpm, tpm, models; null = none)",
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
      summary: 'The audit log of state changes, newest first (an owner sees its own account\'s)',
      responses: { 200: AuditPageSchema, ...errorResponses },
      metadata: adminMetadata('accounts'),
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
      summary: "The account's usage report (same shape as GET /v1/usage/keys)",
      responses: { 200: UsageReportSchema, ...errorResponses },
      metadata: adminMetadata('account'),
    },
  },
  { strictStatusCodes: true },
);
