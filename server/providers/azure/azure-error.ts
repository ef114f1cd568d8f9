import { z } from 'zod';
import { UpstreamError } from '../../errors/gateway-error';
import { readErrorText } from '../transport-errors';
import { openAiErrorMessage } from '../openai/openai-error';
import type { HttpResponse } from '../types';
import { parseJson, parseRetryAfterMs, upstreamStatusError } from '../upstream-errors';

/**
 * Azure OpenAI's refusal of a prompt by its content filter: a 400 whose error has the code
 * `content_filter` and, in `innererror`, the code `ResponsibleAIPolicyViolation` and the
 * filter's verdict per category
 * (https://learn.microsoft.com/azure/ai-foundry/openai/concepts/content-filter#scenario-details).
 * Categories are `{filtered, severity}` (hate, sexual, violence, self_harm), `{filtered, detected}`
 * (jailbreak, protected material) or `{filtered, details}` (custom blocklists).
 */
const FilterResultSchema = z.record(z.unknown());

const AzureErrorBodySchema = z.object({
  error: z
    .object({
      code: z.string().nullish(),
      innererror: z
        .object({
          code: z.string().nullish(),
          content_filter_result: FilterResultSchema.nullish(),
          // The spelling of the chat reply's field, which some API versions use here too.
          content_filter_results: FilterResultSchema.nullish(),
        })
        .passthrough()
        .nullish(),
    })
    .passthrough(),
});

const CategorySchema = z.object({ filtered: z.boolean(), severity: z.string().nullish() }).passthrough();

/** A non-2xx reply -> the gateway's error (docs/errors.md): the content filter's, or the OpenAI reading. */
export async function azureStatusError(response: HttpResponse, provider: string, secret: string, nowMs: number): Promise<UpstreamError> {
  const json = parseJson(await readErrorText(response));
  const value = json.ok ? json.value : null;
  if (response.status === 400) {
    const filtered = contentFilterCategories(value);
    if (filtered !== null) return contentFilterError(provider, filtered);
  }
  return upstreamStatusError(provider, response.status, openAiErrorMessage(value), secret, parseRetryAfterMs(response.headers, nowMs));
}

/** The filtered categories of a content-filter error body (maybe none named); null for any other body. */
export function contentFilterCategories(value: unknown): string[] | null {
  const parsed = AzureErrorBodySchema.safeParse(value);
  if (!parsed.success) return null;
  const { code, innererror } = parsed.data.error;
  if (code !== 'content_filter' && innererror?.code !== 'ResponsibleAIPolicyViolation') return null;
  const results = innererror?.content_filter_result ?? innererror?.content_filter_results ?? {};
  const categories: string[] = [];
  for (const [name, result] of Object.entries(results)) {
    const category = CategorySchema.safeParse(result);
    if (!category.success || !category.data.filtered) continue;
    const severity = category.data.severity;
    categories.push(severity && severity !== 'safe' ? `${name} (${severity})` : name);
  }
  return categories;
}

/** Not retried and no fallback: another model behind the same filter policy would refuse it too. */
function contentFilterError(provider: string, categories: string[]): UpstreamError {
  const which = categories.length > 0 ? `: ${categories.join(', ')}` : '';
  return new UpstreamError('rejected', `The provider "${provider}" refused the prompt under its content filter${which}.`, {
    retryable: false,
    upstreamStatus: 400,
    code: 'content_filter',
  });
}
