import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { parseConfigText } from '../../server/config/load-config';
import { migrate } from '../../server/db/migrate';
import { createGateway } from '../../server/gateway';
import { BASE_TEST_CONFIG } from '../helpers/test-gateway';

/**
 * Run by lazy-loading.test.ts in a process of its own: builds a gateway with the environment
 * it was given, and prints the OpenTelemetry SDK modules the process loaded, as JSON.
 * (@opentelemetry/api itself is left out: Prisma's client loads it whatever the gateway does.)
 */
const directory = mkdtempSync(path.join(tmpdir(), 'traces-lazy-'));
const env = { DATABASE_URL: `file:${path.join(directory, 'gateway.db')}`, LOG_LEVEL: 'silent', ...process.env };
const config = parseConfigText(BASE_TEST_CONFIG, 'test-config.yaml', env);
await migrate(env.DATABASE_URL);
const gateway = await createGateway(config, { logger: pino({ level: 'silent' }) });
const loaded = Object.keys(createRequire(import.meta.url).cache).filter(
  (file) => file.includes(`${path.sep}@opentelemetry${path.sep}`) && !file.includes(`${path.sep}@opentelemetry${path.sep}api${path.sep}`),
);
await gateway.close();
rmSync(directory, { recursive: true, force: true });
process.stdout.write(JSON.stringify({ tracing: config.tracing.enabled, loaded: loaded.length }));
