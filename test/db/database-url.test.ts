import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDatabaseUrl, redact } from '../../server/db/database-url';

describe('parseDatabaseUrl', () => {
  const cwd = '/srv/gateway';

  it.each([
    ['file:./data/gateway.db', '/srv/gateway/data/gateway.db'],
    ['file:data/gateway.db', '/srv/gateway/data/gateway.db'],
    ['file:../shared/gateway.db', '/srv/shared/gateway.db'],
    ['file:/var/lib/gateway/gateway.db', '/var/lib/gateway/gateway.db'],
    ['file:///var/lib/gateway/gateway.db', '/var/lib/gateway/gateway.db'],
    ['file:./data/gateway.db?connection_limit=1', '/srv/gateway/data/gateway.db'],
    ['file:./my%20data/gateway.db', '/srv/gateway/my data/gateway.db'],
    ['file::memory:', ':memory:'],
  ])('%s is SQLite at %s', (url, filename) => {
    expect(parseDatabaseUrl(url, cwd)).toEqual({ kind: 'sqlite', filename: path.normalize(filename) });
  });

  it('resolves relative SQLite paths against process.cwd() by default', () => {
    expect(parseDatabaseUrl('file:./x.db')).toEqual({ kind: 'sqlite', filename: path.join(process.cwd(), 'x.db') });
  });

  it.each(['postgres://u:p@db:5432/gw', 'postgresql://db/gw?sslmode=require', 'POSTGRES://db/gw'])('%s is Postgres', (url) => {
    expect(parseDatabaseUrl(url)).toEqual({ kind: 'postgres', connectionString: url });
  });

  it.each(['mysql://db/gw', 'gateway.db', 'file:', 'file://host/gateway.db'])('refuses %s', (url) => {
    expect(() => parseDatabaseUrl(url)).toThrow();
  });

  it('does not put a password into the error message', () => {
    expect(() => parseDatabaseUrl('mysql://root:s3cret@db/gw')).toThrow(/root:\*\*\*@db/);
    expect(redact('postgres://u:pw@h/db')).toBe('postgres://u:***@h/db');
  });
});
