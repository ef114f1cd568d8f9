import pino, { type DestinationStream, type Logger } from 'pino';
import { batchLines } from './line-batcher';

export type { Logger };

/** Never written, whether at the top of a log line or one level down (a logged object's `headers`). */
const SECRET_KEYS: readonly string[] = ['authorization', 'apiKey', 'key', 'headers'];
const CENSOR = '[redacted]';

/**
 * Structured JSON logs. Asynchronous by default (pino's buffered destination): the request
 * path never waits on a write. Keys and prompts never reach a log line: nothing logs request
 * headers or bodies, and the redaction below is a second line of defence.
 *
 * The redaction is pino's `redact: ['authorization', '*.authorization', 'apiKey', …]`, with
 * the one-level-down (`*.`) half done by hand: pino applies a wildcard path to every value of
 * every line, numbers and strings included (a cost on every access-log line), where only
 * objects can hold a key. Top-level keys stay with pino, which also covers child bindings.
 */
export function createLogger(options: { level: string; destination?: DestinationStream }): Logger {
  // Lines go to pino's buffered destination in pieces of the size it writes at: line-batcher.ts.
  const destination =
    options.destination ??
    batchLines(pino.destination({ sync: false, minLength: WRITE_AT_BYTES, maxWrite: 2 * WRITE_AT_BYTES }), WRITE_AT_BYTES);
  const logger = pino(
    {
      level: options.level,
      base: undefined,
      redact: { paths: [...SECRET_KEYS], censor: CENSOR },
      formatters: { log: redactNested },
      // `err` is serialized after `formatters.log` ran: its own properties are censored here.
      serializers: { err: (error: unknown) => redactOneLevel(pino.stdSerializers.err(error as Error)) },
    },
    destination,
  );
  infoLineWriters.set(logger, (fields, message) => destination.write(infoLine(fields, message)));
  return logger;
}

/**
 * The buffered destination writes once this much is pending (or on the flush every second,
 * serve.ts). An asynchronous write costs about the same CPU whatever its size (the thread
 * pool hand-off), so fewer, larger writes cost a request less: 32 KiB holds about seventy
 * access-log lines, 4 KiB nine (docs/performance.md, "Speed tricks in the code").
 */
const WRITE_AT_BYTES = 32 * 1024;

/** Plain values only: what an access-log line holds. */
export type PlainFields = Record<string, string | number | boolean | undefined>;

const infoLineWriters = new WeakMap<Logger, (fields: PlainFields, message: string) => void>();

/**
 * Writes one info line of plain fields: for a logger made by createLogger, the line pino
 * would write (`{"level":30,"time":…,<fields>,"msg":…}`, undefined fields left out), built
 * directly: pino's generic path (serializers, redaction, formatters, key by key) costs a dozen
 * allocations per access-log line, and CPU to match. None of the secret keys may
 * be among the fields (the caller's fields are fixed names). Other loggers (tests pass
 * their own) get `logger.info`. Nothing is written below the info level.
 */
export function writeInfoLine(logger: Logger, fields: PlainFields, message: string): void {
  if (!logger.isLevelEnabled('info')) return;
  const write = infoLineWriters.get(logger);
  if (write) write(fields, message);
  else logger.info(fields, message);
}

function infoLine(fields: PlainFields, message: string): string {
  let line = `{"level":30,"time":${Date.now()}`;
  for (const name in fields) {
    const value = fields[name];
    if (value === undefined) continue;
    line += `${fieldPrefix(name)}${typeof value === 'string' ? JSON.stringify(value) : Number.isFinite(value) || typeof value === 'boolean' ? String(value) : 'null'}`;
  }
  return `${line},"msg":${JSON.stringify(message)}}\n`;
}

/** `,"name":` for a field name: the access log's few names, encoded once. */
function fieldPrefix(name: string): string {
  let prefix = fieldPrefixes.get(name);
  if (prefix === undefined) {
    prefix = `,${JSON.stringify(name)}:`;
    if (fieldPrefixes.size < MAX_FIELD_PREFIXES) fieldPrefixes.set(name, prefix);
  }
  return prefix;
}

const fieldPrefixes = new Map<string, string>();
const MAX_FIELD_PREFIXES = 256;

/** The line with the secret keys of its object values censored (its own are pino's). */
function redactNested(line: Record<string, unknown>): Record<string, unknown> {
  let result = line;
  for (const name in line) {
    // `err` is the error serializer's: its output is censored there.
    if (!Object.hasOwn(line, name) || name === 'err' || SECRET_KEYS.includes(name)) continue;
    const value = line[name];
    const replacement = redactOneLevel(value);
    if (replacement === value) continue;
    if (result === line) result = { ...line };
    result[name] = replacement;
  }
  return result;
}

/** An object's own secret keys censored, in a copy; anything else is returned as it is. */
function redactOneLevel<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const object = value as Record<string, unknown>;
  if (!SECRET_KEYS.some((name) => name in object)) return value;
  const copy: Record<string, unknown> = { ...object };
  for (const name of SECRET_KEYS) if (name in object) copy[name] = CENSOR;
  return copy as T;
}
