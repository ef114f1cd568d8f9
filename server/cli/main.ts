import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import {
  CreateAccountBodySchema,
  CreateKeyBodySchema,
  ModelAllowListSchema,
  UpdateAccountBodySchema,
  UpdateKeyBodySchema,
} from '../../contract';
import { createAccount, listAccounts, updateAccount } from '../accounts/account-operations';
import { listAudit } from '../audit/audit-log';
import { REQUEST_LIST_FLAGS, runRequestCommand } from './request-commands';
import { runDeploymentCommand } from './deployment-commands';
import { ConfigError, loadConfig } from '../config/load-config';
import { createStore } from '../db/create-store';
import { migrate } from '../db/migrate';
import type { Store } from '../db/types';
import { GatewayError } from '../errors/gateway-error';
import { fromZodError } from '../errors/validation-error';
import { KeyCache } from '../keys/key-cache';
import { publishKeyEventOnce } from '../keys/key-events';
import { changeApiKey, createApiKey, listApiKeys, rotateApiKey, rotateUsageKey } from '../keys/key-operations';
import { createLoginLink } from '../sessions/session-operations';
import { serve } from './serve';
import { BUDGET_FLAGS, BUDGET_PARSE_OPTIONS, budgetOption, hasBudgetFlag, type BudgetValues } from './budget-options';

const USAGE = `Usage: model-gateway <command> [options]

  serve [--config FILE] [--port N] [--host H] [--workers N|auto]
                                                  start the gateway (applies pending migrations first);
                                                  --workers: N processes on the port (auto: one per core; needs REDIS_URL)
  migrate [--config FILE]                         apply pending database migrations
  accounts create --name NAME                     -> {"id","name"}
  accounts list
  accounts login-link ID [--base-url URL]         -> {"url","expires_at"}: a one-time dashboard sign-in for
                                                  the account's owner (URL default: GATEWAY_PUBLIC_URL,
                                                  else http://localhost:PORT)
  accounts limits ID [--rpm N] [--tpm N] [--models LIST|all] [BUDGET|--no-budget]
                                                  the account's ceilings (0 / all = none); LIST: ids or
                                                  prefix* patterns, comma-separated
  keys create --account ID --name NAME [--rpm N] [--tpm N] [--models LIST] [--expires-at TIME] [BUDGET]
                                                  -> {"id","name","key","hint","status","blocked","created_at"}
  keys list --account ID
  keys revoke ID | keys block ID | keys unblock ID
  keys limits ID [--rpm N] [--tpm N] [--models LIST|all] [BUDGET|--no-budget]
                                                  (0 = back to the configured default; all = every model)
                                                  BUDGET: --budget-usd N --budget-period day|week|month|total
                                                  [--budget-alert 0.5,0.8] (a spend budget, Asia/Shanghai periods)
  keys expiry ID --expires-at TIME|never          TIME: ISO 8601, e.g. 2026-12-31T23:59:59Z
  keys rotate ID --grace-seconds N                -> the key with its new secret ("key"), shown once; the old
                                                  secret works N more seconds (0 = stops at once)
  audit list [--account ID] [--limit N] [--cursor C]
                                                  the audit log, newest first (next page: --cursor next_cursor)
  requests list [--account ID] [--key ID] [--model M] [--status N] [--error-code C] [--from TIME] [--to TIME]
                [--limit N] [--cursor C]          the request log, newest first (next page: --cursor next_cursor)
  requests show ID                                one request, with its bodies when kept
  usage-key create --account ID                   -> {"key":"uk-…"}
  deployments list                                the catalogue's deployments: state (healthy, cooling_down, disabled) and cooldown
  deployments disable ID | deployments enable ID  no traffic to it on any server until enabled (kept across restarts)

Every command reads GATEWAY_CONFIG, DATABASE_URL and REDIS_URL like serve does, and prints JSON.`;

/** CLI failures: one line on stderr, exit code 1. */
class CliError extends Error {}

/** The flags each command takes; any other is refused (it would otherwise be ignored silently). */
const COMMAND_FLAGS: Record<string, string[]> = {
  serve: ['config', 'port', 'host', 'workers'],
  migrate: ['config'],
  'accounts create': ['config', 'name'],
  'accounts list': ['config'],
  'accounts login-link': ['config', 'base-url'],
  'accounts limits': ['config', 'rpm', 'tpm', 'models', ...BUDGET_FLAGS],
  'keys create': ['config', 'account', 'name', 'rpm', 'tpm', 'models', 'expires-at', 'budget-usd', 'budget-period', 'budget-alert'],
  'keys list': ['config', 'account'],
  'keys revoke': ['config'],
  'keys block': ['config'],
  'keys unblock': ['config'],
  'keys limits': ['config', 'rpm', 'tpm', 'models', ...BUDGET_FLAGS],
  'keys expiry': ['config', 'expires-at'],
  'keys rotate': ['config', 'grace-seconds'],
  'audit list': ['config', 'account', 'limit', 'cursor'],
  'usage-key create': ['config', 'account'],
  'requests list': ['config', ...Object.keys(REQUEST_LIST_FLAGS)],
  'requests show': ['config'],
  'deployments list': ['config'],
  'deployments disable': ['config'],
  'deployments enable': ['config'],
};
const NUMBER_FLAGS = new Set(['--port', '--rpm', '--tpm', '--workers', '--grace-seconds', '--limit']);

/** Runs one command; resolves to the process exit code. */
export async function main(argv: string[], env: Record<string, string | undefined> = process.env): Promise<number> {
  try {
    const [command, subcommand] = argv;
    if (!command || command === '--help' || command === '-h' || command === 'help') {
      process.stdout.write(`${USAGE}\n`);
      return command ? 0 : 1;
    }
    const options = parseArgs({
      args: withNegativeValues(withWorkersDefault(argv.slice(1))),
      allowPositionals: true,
      strict: true,
      options: {
        config: { type: 'string' },
        port: { type: 'string' },
        host: { type: 'string' },
        name: { type: 'string' },
        account: { type: 'string' },
        rpm: { type: 'string' },
        tpm: { type: 'string' },
        'base-url': { type: 'string' },
        workers: { type: 'string' },
        models: { type: 'string' },
        'expires-at': { type: 'string' },
        'grace-seconds': { type: 'string' },
        limit: { type: 'string' },
        cursor: { type: 'string' },
        key: { type: 'string' },
        model: { type: 'string' },
        status: { type: 'string' },
        'error-code': { type: 'string' },
        from: { type: 'string' },
        to: { type: 'string' },
        ...BUDGET_PARSE_OPTIONS,
      },
    });
    const commandName = command === 'serve' || command === 'migrate' ? command : `${command} ${subcommand ?? ''}`.trim();
    const allowed = COMMAND_FLAGS[commandName];
    if (allowed) {
      const extra = Object.keys(options.values).find((flag) => !allowed.includes(flag));
      if (extra) fail(`${commandName} does not take --${extra}; run model-gateway --help`);
    }
    const config = loadConfig({ path: options.values.config, env });
    if (command === 'serve') {
      if (options.values.port) config.server.port = integerOption('--port', options.values.port, 0);
      if (options.values.host) config.server.host = options.values.host;
      return await serve(config, { workers: workersOption(options.values.workers) });
    }
    if (command === 'migrate') {
      const result = await migrate(config.databaseUrl);
      print({ applied: result.applied });
      return 0;
    }
    await migrate(config.databaseUrl);
    const store = await createStore(config.databaseUrl);
    // With REDIS_URL, a key change made here is announced to running servers at once (their
    // polling picks it up within a second otherwise). The CLI's own cache only announces.
    const redisUrl = config.redisUrl;
    const cache = new KeyCache(store, {
      broadcast: redisUrl ? (event) => publishKeyEventOnce(redisUrl, event) : undefined,
      onError: (error) =>
        process.stderr.write(
          `model-gateway: warning: running servers were not notified through Redis (${describe(error)}); they pick the change up within a second\n`,
        ),
    });
    try {
      const values = {
        ...options.values,
        'base-url': options.values['base-url'] ?? config.publicUrl ?? `http://localhost:${config.server.port}`,
      };
      if (command === 'requests') {
        print(await runRequestCommand(store, config.requestLog.bodies.accounts, subcommand, options.positionals.slice(1), options.values));
        return 0;
      }
      if (command === 'deployments') {
        const warn = (message: string) => process.stderr.write(`model-gateway: warning: ${message}\n`);
        print(await runDeploymentCommand(config, store, subcommand, options.positionals.slice(1), warn));
        return 0;
      }
      const catalogue = new Set(config.models.map((model) => model.id));
      print(await runStoreCommand({ store, cache, now: Date.now, catalogue }, command, subcommand, options.positionals.slice(1), values));
      return 0;
    } finally {
      await store.close();
    }
  } catch (error) {
    // One line, whatever the error's text (some libraries' messages span several).
    process.stderr.write(
      `model-gateway: ${describe(error)
        .replace(/\s*\n\s*/g, ' ')
        .trim()}\n`,
    );
    return 1;
  }
}

type Values = BudgetValues & {
  name?: string;
  account?: string;
  rpm?: string;
  tpm?: string;
  'base-url'?: string;
  models?: string;
  'expires-at'?: string;
  'grace-seconds'?: string;
  limit?: string;
  cursor?: string;
};

async function runStoreCommand(
  dependencies: { store: Store; cache: KeyCache; now: () => number; catalogue: ReadonlySet<string> },
  command: string,
  subcommand: string | undefined,
  positionals: string[],
  values: Values,
): Promise<unknown> {
  const keyId = () => positionals[0] ?? fail(`${command} ${subcommand} needs a key id`);
  const need = (name: Exclude<keyof Values, 'no-budget'>) => values[name] ?? fail(`${command} ${subcommand} needs --${name}`);

  switch (`${command} ${subcommand ?? ''}`.trim()) {
    case 'accounts create': {
      const account = await createAccount(dependencies, checked(CreateAccountBodySchema, { name: need('name') }).name);
      return { id: account.id, name: account.name };
    }
    case 'accounts list':
      return listAccounts(dependencies);
    case 'accounts login-link': {
      const accountId = positionals[0] ?? fail('accounts login-link needs an account id');
      const baseUrl = need('base-url');
      if (!/^https?:\/\/[^\s/]+(\/\S*)?$/.test(baseUrl))
        fail('--base-url must be an http:// or https:// address, e.g. https://gateway.example.com');
      return createLoginLink(dependencies, accountId, baseUrl);
    }
    case 'accounts limits': {
      const accountId = positionals[0] ?? fail('accounts limits needs an account id');
      if (values.rpm === undefined && values.tpm === undefined && values.models === undefined && !hasBudgetFlag(values))
        fail('accounts limits needs --rpm, --tpm, --models and/or a budget');
      const body = checked(UpdateAccountBodySchema, {
        rpm: limitOption('--rpm', values.rpm),
        tpm: limitOption('--tpm', values.tpm),
        models: modelsOption(values.models),
      });
      return updateAccount(dependencies, accountId, { rpm: body.rpm, tpm: body.tpm, models: body.models, budget: budgetFlags(values) });
    }
    case 'keys create': {
      // The admin API's body schema (contract/admin.ts): the same limits on either database.
      const body = checked(CreateKeyBodySchema, {
        name: need('name'),
        rpm: values.rpm === undefined ? undefined : wholeNumber('--rpm', values.rpm),
        tpm: values.tpm === undefined ? undefined : wholeNumber('--tpm', values.tpm),
        models: modelsOption(values.models) ?? undefined,
      });
      const created = await createApiKey(dependencies, {
        accountId: need('account'),
        name: body.name,
        rpm: body.rpm,
        tpm: body.tpm,
        models: body.models,
        expiresAt: values['expires-at'] === undefined ? undefined : timeOption(values['expires-at']),
        budget: budgetFlags(values) ?? undefined,
      });
      const { id, name, key, hint, status, blocked, created_at, models: allowed, expires_at, budget, set_by } = created;
      return { id, name, key, hint, status, blocked, created_at, models: allowed, expires_at, budget, set_by };
    }
    case 'keys list':
      return listApiKeys(dependencies, need('account'));
    case 'keys revoke':
      return changeApiKey(dependencies, keyId(), { kind: 'revoke' });
    case 'keys block':
      return changeApiKey(dependencies, keyId(), { kind: 'block' });
    case 'keys unblock':
      return changeApiKey(dependencies, keyId(), { kind: 'unblock' });
    case 'keys limits': {
      if (values.rpm === undefined && values.tpm === undefined && values.models === undefined && !hasBudgetFlag(values))
        fail('keys limits needs --rpm, --tpm, --models and/or a budget');
      const body = checked(UpdateKeyBodySchema, {
        rpm: limitOption('--rpm', values.rpm),
        tpm: limitOption('--tpm', values.tpm),
        models: modelsOption(values.models),
      });
      const budget = budgetFlags(values);
      return changeApiKey(dependencies, keyId(), { kind: 'update', rpm: body.rpm, tpm: body.tpm, models: body.models, budget });
    }
    case 'keys expiry': {
      const text = need('expires-at');
      return changeApiKey(dependencies, keyId(), { kind: 'update', expiresAt: text === 'never' ? null : timeOption(text) });
    }
    case 'keys rotate':
      return rotateApiKey(dependencies, keyId(), integerOption('--grace-seconds', need('grace-seconds'), 0));
    case 'audit list': {
      const page = await listAudit(dependencies.store, {
        accountId: values.account,
        limit: values.limit === undefined ? 100 : Math.min(500, integerOption('--limit', values.limit, 1)),
        cursor: values.cursor,
      });
      return page ?? fail('--cursor must be a next_cursor that audit list printed');
    }
    case 'usage-key create':
      return { key: (await rotateUsageKey(dependencies, need('account'))).key };
    default:
      return fail(`unknown command "${[command, subcommand].filter(Boolean).join(' ')}"; run model-gateway --help`);
  }
}

/**
 * Input checked by the admin API's schema; its first problem as one line, naming the flag
 * (`Invalid value for --tpm: Number must be less than or equal to 1000000000`).
 */
function checked<S extends z.ZodTypeAny>(schema: S, input: z.input<S>): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data as z.output<S>;
  const error = fromZodError(result.error);
  fail(error.param ? error.message.replace(` ${error.param}`, ` --${error.param}`) : error.message);
}

/** A flag's whole number (any sign: the schema says which are allowed). */
function wholeNumber(flag: string, text: string): number {
  const value = Number(text);
  if (!/^-?\d+$/.test(text) || !Number.isSafeInteger(value)) fail(`${flag} must be a whole number, got "${text}"`);
  return value;
}

/**
 * `--rpm -5`: parseArgs would take `-5` for a flag and fail with a message of three lines;
 * written `--rpm=-5`, the value reaches the check that says what is allowed.
 */
function withNegativeValues(args: string[]): string[] {
  const result: string[] = [];
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] as string;
    const next = args[index + 1];
    if (NUMBER_FLAGS.has(arg) && next !== undefined && /^-\d/.test(next)) {
      result.push(`${arg}=${next}`);
      index += 1;
    } else result.push(arg);
  }
  return result;
}

/** `--workers` alone (last, or before another flag) means one worker per core. */
function withWorkersDefault(args: string[]): string[] {
  return args.flatMap((arg, index) =>
    arg === '--workers' && (args[index + 1] === undefined || args[index + 1]?.startsWith('--')) ? [arg, 'auto'] : [arg],
  );
}

function workersOption(text: string | undefined): number {
  if (text === undefined) return 1;
  if (text === 'auto') return availableParallelism();
  return integerOption('--workers', text, 1);
}

function integerOption(flag: string, text: string, minimum: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < minimum) fail(`${flag} must be a whole number of at least ${minimum}`);
  return value;
}

/** A limit flag: 0 = none (the default, or no ceiling); the schema checks the range. */
function limitOption(flag: string, text: string | undefined): number | null | undefined {
  if (text === undefined) return undefined;
  const value = wholeNumber(flag, text);
  return value === 0 ? null : value;
}

/** `--models a,b*` as a list (checked like the admin API's), `all` = every model. */
function modelsOption(text: string | undefined): string[] | null | undefined {
  if (text === undefined) return undefined;
  if (text === 'all') return null;
  const parsed = ModelAllowListSchema.safeParse(
    text
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== ''),
  );
  if (!parsed.success) fail('--models must be "all" or a comma-separated list of model ids or prefix* patterns');
  return parsed.data;
}

function budgetFlags(values: BudgetValues) {
  try {
    return budgetOption(values);
  } catch (error) {
    return fail((error as Error).message);
  }
}

function timeOption(text: string): Date {
  if (!z.string().datetime({ offset: true }).safeParse(text).success)
    fail('--expires-at must be an ISO 8601 time such as 2026-12-31T23:59:59Z');
  return new Date(text);
}

function fail(message: string): never {
  throw new CliError(message);
}

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

function describe(error: unknown): string {
  if (error instanceof ConfigError || error instanceof CliError || error instanceof GatewayError) return error.message;
  // parseArgs explains some errors over several lines: the first says what is wrong.
  if (error instanceof Error && 'code' in error && typeof error.code === 'string' && error.code.startsWith('ERR_PARSE_ARGS'))
    return error.message.split('\n')[0] ?? error.message;
  return error instanceof Error ? error.message : String(error);
}
