import { mkdirSync } from 'node:fs';
import path from 'node:path';

/** Where a DATABASE_URL points (docs/configuration.md: `file:…` = SQLite, `postgres://…` = Postgres). */
export type DatabaseTarget = { kind: 'sqlite'; filename: string } | { kind: 'postgres'; connectionString: string };

const MEMORY = ':memory:';

/**
 * Parses a DATABASE_URL. SQLite paths may be relative (to process.cwd()) or absolute:
 * `file:./data/gateway.db`, `file:data/gateway.db`, `file:/var/lib/gateway/gateway.db`,
 * `file:///var/lib/gateway/gateway.db`. A query string (`?connection_limit=1`, common in
 * Prisma URLs) is ignored.
 */
export function parseDatabaseUrl(databaseUrl: string, cwd: string = process.cwd()): DatabaseTarget {
  const url = databaseUrl.trim();
  if (/^postgres(ql)?:\/\//i.test(url)) {
    return { kind: 'postgres', connectionString: url };
  }
  if (url.toLowerCase().startsWith('file:')) {
    let location = url.slice('file:'.length);
    const query = location.indexOf('?');
    if (query !== -1) location = location.slice(0, query);
    if (location.startsWith('//')) {
      // file://host/path is not supported; file:///abs/path is the absolute form.
      if (!location.startsWith('///')) {
        throw new Error(`Unsupported DATABASE_URL "${databaseUrl}": use file:/absolute/path or file:./relative/path`);
      }
      location = location.slice(2);
    }
    location = decodeURIComponent(location);
    if (location === '') {
      throw new Error(`DATABASE_URL "${databaseUrl}" names no file`);
    }
    if (location === MEMORY) return { kind: 'sqlite', filename: MEMORY };
    return { kind: 'sqlite', filename: path.resolve(cwd, location) };
  }
  throw new Error(`Unsupported DATABASE_URL "${redact(databaseUrl)}": expected file:… (SQLite) or postgres://… (PostgreSQL)`);
}

/** Creates the directory an SQLite file lives in, so a fresh checkout can start with the default URL. */
/**
 * Set on every SQLite connection the gateway opens (most pragmas are per connection):
 * SQLite leaves foreign keys off by default; WAL (persistent, also set by migrate) lets
 * readers run during a write, and with WAL, synchronous=NORMAL is durable against
 * application crashes and much faster.
 */
export const SQLITE_CONNECTION_PRAGMAS = ['foreign_keys = ON', 'journal_mode = WAL', 'synchronous = NORMAL'] as const;

export function ensureSqliteDirectory(filename: string): void {
  if (filename === MEMORY) return;
  mkdirSync(path.dirname(filename), { recursive: true });
}

/** Hides a password in a URL before it goes into an error message. */
export function redact(databaseUrl: string): string {
  return databaseUrl.replace(/\/\/([^:/@]+):[^@/]*@/, '//$1:***@');
}
