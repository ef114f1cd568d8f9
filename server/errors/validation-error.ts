import type { ZodError, ZodIssue } from 'zod';
import type { GatewayError } from './gateway-error';
import { invalidRequest } from './gateway-error';

/** `['messages', 0, 'role']` -> `messages[0].role`, the `param` format of docs/errors.md. */
export function formatParam(path: ReadonlyArray<string | number>): string | null {
  let result = '';
  for (const part of path) {
    if (typeof part === 'number') result += `[${part}]`;
    else result += result.length === 0 ? part : `.${part}`;
  }
  return result.length === 0 ? null : result;
}

/** A zod type name in words, as the messages say it: `string` -> "a string". */
const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  nan: 'not a number (NaN)',
  integer: 'an integer',
  float: 'a number',
  boolean: 'true or false',
  bigint: 'an integer',
  array: 'an array',
  object: 'an object',
  null: 'null',
  undefined: 'nothing',
  date: 'a date',
  function: 'a function',
  symbol: 'a symbol',
  map: 'a map',
  set: 'a set',
  unknown: 'a value',
};

// An enum's expected "type" is its values joined with " | ".
const typeInWords = (type: string): string => TYPE_WORDS[type] ?? (type.includes(' | ') ? `one of ${type.split(' | ').join(', ')}` : type);

/** Where the invalid value came from: a query parameter gets its own wording. */
export type ValidationSource = 'body' | 'query' | 'path';

/** Turns the first zod issue into the 400 of docs/errors.md, naming the offending field and, for a wrong type, the expected one in words. */
export function fromZodError(
  error: ZodError,
  prefix: ReadonlyArray<string | number> = [],
  source: ValidationSource = 'body',
): GatewayError {
  const issue = deepestIssue(error.issues[0]);
  if (!issue) return invalidRequest('invalid_value', 'The request is invalid.');
  const path = [...prefix, ...issue.path];
  const param = formatParam(path);
  const name = param ?? 'the request body';

  if (issue.code === 'invalid_type' && issue.received === 'undefined') {
    return invalidRequest('missing_field', `Missing required field: ${name}.`, param);
  }
  if (source === 'query' && issue.code === 'invalid_type' && issue.received === 'array') {
    // Express reads `?start=a&start=b` as a list: say what happened instead of "expected a string".
    return invalidRequest('invalid_value', `The query parameter ${name} is given more than once; give it once.`, param);
  }
  if (issue.code === 'invalid_type') {
    return invalidRequest(
      'invalid_value',
      `Invalid type for ${name}: expected ${typeInWords(issue.expected)}, got ${typeInWords(issue.received)}.`,
      param,
    );
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
  if (issue.code === 'custom' && issue.params?.typeInWords === true) {
    return invalidRequest('invalid_value', issue.message.replace('Invalid type:', `Invalid type for ${name}:`), param);
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
  if (
    absent.every(
      (candidate) =>
        candidate?.code === 'invalid_type' && candidate.received === 'undefined' && candidate.path.length === issue.path.length,
    )
  ) {
    return absent[0];
  }
  let best: ZodIssue | undefined;
  for (const unionError of issue.unionErrors) {
    for (const candidate of unionError.issues) {
      const deep = deepestIssue(candidate);
      if (deep && (!best || deep.path.length > best.path.length)) best = deep;
    }
  }
  // A wrong type at the union itself: name every type the alternatives accept.
  if (!best || best.path.length <= issue.path.length) return unionTypeIssue(issue);
  return best;
}

/** The union's alternatives' expected types, as one invalid_type issue ("a string or an array"). */
function unionTypeIssue(issue: Extract<ZodIssue, { code: 'invalid_union' }>): ZodIssue {
  const expected = new Set<string>();
  let received = 'unknown';
  for (const unionError of issue.unionErrors) {
    for (const candidate of unionError.issues) {
      if (candidate.code !== 'invalid_type' || candidate.path.length !== issue.path.length) continue;
      expected.add(typeInWords(candidate.expected));
      received = candidate.received;
    }
  }
  if (expected.size === 0) return { ...issue, message: 'it matches none of the accepted forms.' };
  const words = [...expected];
  const list = words.length === 1 ? words[0] : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
  return {
    code: 'custom',
    path: issue.path,
    message: `Invalid type: expected ${list}, got ${typeInWords(received)}.`,
    params: { typeInWords: true },
  };
}
