import { RequestLogQuerySchema } from '../../contract';
import type { Store } from '../db/types';
import { fromZodError } from '../errors/validation-error';
import { getRequestDetail, listRequestPage } from '../request-log/list-requests';

/** `requests list`'s flags, by the query parameter each one sets (docs/request-log.md). */
export const REQUEST_LIST_FLAGS: Record<string, string> = {
  account: 'account_id',
  key: 'key_id',
  model: 'model',
  status: 'status',
  'error-code': 'error_code',
  from: 'from',
  to: 'to',
  limit: 'limit',
  cursor: 'cursor',
};

/**
 * `requests list` and `requests show ID` (docs/request-log.md): the operator's view of the
 * request log, the admin API's filters as flags, checked by its schema. Throws a one-line
 * message for the CLI to print.
 */
export async function runRequestCommand(
  store: Store,
  bodiesAccounts: readonly string[],
  subcommand: string | undefined,
  positionals: readonly string[],
  values: Readonly<Record<string, string | boolean | undefined>>,
): Promise<unknown> {
  if (subcommand === 'show') {
    const id = positionals[0] ?? fail('requests show needs a record id');
    return (await getRequestDetail(store, id, null)) ?? fail(`no request ${id} in the request log`);
  }
  const input: Record<string, unknown> = {};
  for (const [flag, parameter] of Object.entries(REQUEST_LIST_FLAGS)) {
    const value = values[flag];
    if (typeof value === 'string') input[parameter] = value;
  }
  const parsed = RequestLogQuerySchema.safeParse(input);
  if (!parsed.success) {
    const error = fromZodError(parsed.error);
    const flag = Object.entries(REQUEST_LIST_FLAGS).find(([, parameter]) => parameter === error.param)?.[0];
    fail(flag ? error.message.replace(` ${error.param ?? ''}`, ` --${flag}`) : error.message);
  }
  return (
    (await listRequestPage(store, parsed.data, null, (accountId) => bodiesAccounts.includes(accountId))) ??
    fail('--cursor must be a next_cursor that requests list printed')
  );
}

function fail(message: string): never {
  throw new Error(message);
}
