import type { ResponseFormat } from '../../../contract';

/**
 * JSON mode for Anthropic, which has no JSON flag in the Messages API.
 * https://platform.claude.com/docs/en/test-and-evaluate/strengthen-guardrails/increase-consistency
 * documents two prompt techniques: state the exact output format (we add it to the system
 * prompt, with the schema for `json_schema`) and prefill the assistant turn with `{`, which
 * skips any preamble. The reply then continues after the prefill, so the adapter puts the `{`
 * back in front of the reply text.
 *
 * Prefill is not accepted everywhere:
 * https://platform.claude.com/docs/en/about-claude/models/whats-new-claude-4-6#prefill-removal
 * ("Prefilling assistant messages returns a 400 error on Claude 4.6 models"), later models
 * included. For those, and for model names we cannot read a version from, only the system
 * instruction is used: a request must never fail because of something the gateway added.
 */
export const JSON_PREFILL = '{';

export function jsonInstruction(format: ResponseFormat): string | null {
  if (format.type === 'json_object') {
    return 'Respond with a single valid JSON object and nothing else: no prose before or after it, no Markdown code fences.';
  }
  if (format.type === 'json_schema') {
    const { name, description, schema } = format.json_schema;
    const lines = [
      'Respond with a single valid JSON object and nothing else: no prose before or after it, no Markdown code fences.',
      `The object is a "${name}"${description ? `: ${description}` : ''}.`,
    ];
    if (schema) lines.push(`It must conform to this JSON Schema:\n${JSON.stringify(schema)}`);
    return lines.join('\n');
  }
  return null;
}

/** Whether the model accepts a final assistant turn (Claude models before 4.6 do). */
export function acceptsAssistantPrefill(model: string): boolean {
  const version = claudeVersion(model);
  if (!version) return false;
  return version.major < 4 || (version.major === 4 && version.minor < 6);
}

/**
 * Reads the version from both naming schemes: `claude-3-5-haiku-20241022`, `claude-2.1`
 * (version first) and `claude-sonnet-4-5-20250929`, `claude-opus-4-6` (family first). Date
 * suffixes are 8 digits and never taken for a minor version.
 */
function claudeVersion(model: string): { major: number; minor: number } | null {
  const lower = model.toLowerCase();
  const start = lower.indexOf('claude-');
  if (start === -1) return null;
  const tokens = lower.slice(start + 'claude-'.length).split(/[-.@:]/);
  const index = tokens.findIndex(isVersionNumber);
  if (index === -1) return null;
  const next = tokens[index + 1];
  return { major: Number(tokens[index]), minor: next !== undefined && isVersionNumber(next) ? Number(next) : 0 };
}

function isVersionNumber(token: string | undefined): boolean {
  return token !== undefined && token.length > 0 && token.length <= 2 && /^\d+$/.test(token);
}
