/**
 * Whether an error from the store means "the database cannot be reached right now" (down,
 * restarting, network cut, pool exhausted, SQLite locked too long) rather than a bug or a
 * bad query. Recognised by shape, so nothing outside db/ needs Prisma's error classes:
 * Prisma's connection codes (https://www.prisma.io/docs/orm/reference/error-reference),
 * Node's socket errors and the pg driver's messages, anywhere in the `cause` chain.
 */
const PRISMA_CONNECTION_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1011', 'P1017', 'P2024']);
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'SQLITE_BUSY',
]);
/** Postgres SQLSTATEs: admin shutdown, crash shutdown, cannot connect now, too many connections. */
const POSTGRES_STATES = new Set(['57P01', '57P02', '57P03', '53300', '08000', '08001', '08003', '08006']);
const MESSAGES = [
  /can't reach database server/i,
  /connection terminated/i,
  /connection refused/i,
  /timeout exceeded when trying to connect/i,
  /database is locked/i,
];

export function isDatabaseUnavailable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const { code, message, cause } = current as { code?: unknown; message?: unknown; cause?: unknown };
    if (typeof code === 'string' && (PRISMA_CONNECTION_CODES.has(code) || SOCKET_CODES.has(code) || POSTGRES_STATES.has(code))) return true;
    if (typeof message === 'string' && MESSAGES.some((pattern) => pattern.test(message))) return true;
    current = cause;
  }
  return false;
}

/**
 * Text the database cannot store (Postgres refuses NUL characters: SQLSTATE 22021, and
 * 22P05 for untranslatable ones): the client's input, not a server fault.
 */
export function isUnstorableText(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const { code, message, cause, meta } = current as { code?: unknown; message?: unknown; cause?: unknown; meta?: { code?: unknown } };
    if (code === '22021' || code === '22P05' || meta?.code === '22021' || meta?.code === '22P05') return true;
    if (typeof message === 'string' && /Code: `22(021|P05)`|invalid byte sequence for encoding|untranslatable character/.test(message))
      return true;
    current = cause;
  }
  return false;
}
