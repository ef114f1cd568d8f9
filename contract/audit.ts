import { z } from 'zod';

/** The audit log (docs/operator-controls.md): every state change, read with `GET /v1/admin/audit`. */
export const AuditEntrySchema = z
  .object({
    id: z.string().describe("The entry's id; ids sort in the order the entries were made."),
    at: z.string().describe('ISO 8601 time.'),
    actor: z.enum(['operator', 'owner']).describe('Who made the change.'),
    account_id: z.string().nullable().describe('The account concerned; null for none.'),
    action: z.string().describe('e.g. key.create, key.update, key.block, key.rotate, account.update.'),
    target_id: z.string().describe('The id of the changed object.'),
    before: z.record(z.unknown()).nullable().describe('The object before the change (never a secret); null for a creation.'),
    after: z.record(z.unknown()).nullable().describe('The object after the change (never a secret).'),
    request_id: z.string().nullable().describe('The request that made the change.'),
  })
  .describe('One state change.');
export type AuditEntry = z.infer<typeof AuditEntrySchema>;

export const AuditQuerySchema = z.object({
  account_id: z.string().optional().describe("Only this account's entries."),
  limit: z.coerce.number().int().min(1).max(500).default(100).describe('Entries per page; 1 to 500.'),
  cursor: z.string().max(200).optional().describe('`next_cursor` of the previous page.'),
});

export const AuditPageSchema = z
  .object({
    object: z.literal('list'),
    data: z.array(AuditEntrySchema).describe('Newest first.'),
    next_cursor: z.string().nullable().describe('Pass as `cursor` for older entries; null on the last page.'),
  })
  .describe('A page of the audit log.');
