import type { ZodError, ZodIssue } from 'zod';
import { GatewayError, invalidRequest } from './gateway-error';

/** `['messages', 0, 'role']` -> `messages[0].role`, the `param` format of decisions.md §1. */
export function formatParam(path: ReadonlyArray<string | number>): string | null {
  let result = '';
  for (const part of path) {
    if (typeof part === 'number') result += `[${part}]`;
    else result += result.length === 0 ? part : `.${part}`;
  }
  return result.length === 0 ? null : result;
}

/** Turns the first zod issue into the 400 of decisions.md §1, naming the offending field. */
export function fromZodError(error: ZodError, prefix: ReadonlyArray<string | number> = []): GatewayError {
  const issue = deepestIssue(error.issues[0]);
  if (!issue) return invalidRequest('invalid_value', 'The request is invalid.');
  const path = [...prefix, ...issue.path];
  const param = formatParam(path);
  const name = param ?? 'the request body';

  if (issue.code === 'invalid_type' && issue.received === 'undefined') {
    return invalidRequest('missing_field', `Missing required field: ${name}.`, param);
  }
  if (path[0] === 'stop' && issue.code === 'too_big') {
    return invalidRequest('too_many_stop_sequences', 'At most 4 stop sequences are allowed.', param);
  }
  if (issue.code === 'invalid_union_discriminator') {
    const options = issue.options.map((option) => `'${String(option)}'`).join(', ');
    return invalidRequest('invalid_value', `Invalid value for ${name}: expected one of ${options}.`, param);
  }
  if (issue.code === 'unrecognized_keys') {
    return invalidRequest('invalid_value', `Unknown field${issue.keys.length > 1 ? 's' : ''} in ${name}: ${issue.keys.join(', ')}.`, param);
  }
  return invalidRequest('invalid_value', `Invalid value for ${name}: ${issue.message}`, param);
}

/**
 * For a union (e.g. content: string | parts[]) zod reports "Invalid input" at the union;
 * the most useful message is the issue that got furthest into one of the alternatives.
 */
function deepestIssue(issue: ZodIssue | undefined): ZodIssue | undefined {
  if (!issue || issue.code !== 'invalid_union') return issue;
  // Absent, every alternative says "Required": a missing field, like any other (e.g. embeddings' `input`).
  const absent = issue.unionErrors.map((unionError) => unionError.issues[0]);
  if (absent.every((candidate) => candidate?.code === 'invalid_type' && candidate.received === 'undefined' && candidate.path.length === issue.path.length)) {
    return absent[0];
  }
  let best: ZodIssue | undefined;
  for (const unionError of issue.unionErrors) {
    for (const candidate of unionError.issues) {
      const deep = deepestIssue(candidate);
      if (deep && (!best || deep.path.length > best.path.length)) best = deep;
    }
  }
  // A wrong type at the union itself ("expected string or array") is better said plainly.
  if (!best || best.path.length <= issue.path.length) return { ...issue, message: 'Invalid type.' };
  return best;
}
