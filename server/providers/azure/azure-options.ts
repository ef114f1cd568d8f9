import { z } from 'zod';
import { parseProviderOptions } from '../provider-options';

/**
 * `providers.<name>.options` of an `azure` provider (docs/azure.md); strict, so a misspelt
 * option fails at start with its line.
 */
export const AzureOptionsSchema = z
  .object({
    /**
     * Absent: the v1 API (`<endpoint>/openai/v1/…`, the deployment named by `model` in the body).
     * Set: the deployment-path API (`<endpoint>/openai/deployments/<deployment>/…?api-version=…`).
     */
    api_version: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}(-preview)?$/, 'must be an Azure OpenAI API version such as 2024-10-21')
      .optional(),
    /**
     * How the gateway signs in: `api_key` (the `api_key_env` variable in the `api-key` header),
     * `entra_token` (the variable holds a Microsoft Entra access token, sent as a bearer token),
     * `entra_credential` (Azure's DefaultAzureCredential chain obtains and renews the token).
     */
    auth: z.enum(['api_key', 'entra_token', 'entra_credential']).default('api_key'),
  })
  .strict();
export type AzureOptions = z.infer<typeof AzureOptionsSchema>;

export function parseAzureOptions(provider: string, options: Record<string, unknown> | undefined): AzureOptions {
  return parseProviderOptions(AzureOptionsSchema, 'azure', provider, options);
}
