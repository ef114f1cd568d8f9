import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';

/** A throwaway database for one benchmark run: created fresh, dropped at the end. */
export interface BenchDatabase {
  url: string;
  kind: 'sqlite' | 'postgres';
  drop(): Promise<void>;
}

/** The local trust-auth server CI and the dev container provide; BENCH_POSTGRES_URL overrides it. */
export const BENCH_POSTGRES_ADMIN_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export async function createBenchDatabase(kind: 'sqlite' | 'postgres'): Promise<BenchDatabase> {
  if (kind === 'sqlite') {
    const directory = mkdtempSync(path.join(tmpdir(), 'gw-bench-'));
    return {
      url: `file:${path.join(directory, 'gateway.db')}`,
      kind,
      drop: async () => rmSync(directory, { recursive: true, force: true }),
    };
  }
  const name = `gw_bench_${randomBytes(6).toString('hex')}`;
  await withAdminClient((client) => client.query(`CREATE DATABASE "${name}"`));
  const url = new URL(BENCH_POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    kind,
    drop: () => withAdminClient((client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => undefined),
  };
}

/** One query on the benchmark database with the raw driver (statistics, index checks). */
export async function benchQuery<T extends object>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

async function withAdminClient<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: BENCH_POSTGRES_ADMIN_URL, connectionTimeoutMillis: 3_000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
