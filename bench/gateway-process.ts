import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { withServingEnv, withServingFlags } from '../server/cli/serving-flags';
import { createStore } from '../server/db/create-store';
import type { Store } from '../server/db/types';
import { createBenchDatabase, type BenchDatabase } from './bench-database';
import { BEDROCK_BENCH_MODEL } from './scenarios';
import { freePort, startServer, type BenchProcess } from './processes';

/**
 * The gateway as it runs in production: `model-gateway serve` in its own process, with a
 * real account and key made by the CLI, rate limits on, usage recorded to a fresh database
 * (SQLite, or Postgres + Redis), an `openai`-type provider pointed at the mock upstream.
 */
export interface GatewayUnderTest {
  process: BenchProcess;
  database: BenchDatabase;
  authorization: string;
  logFile: string;
  /** Usage events stored so far (read beside the running gateway). */
  countUsage(): Promise<number>;
  /** Stops the gateway (SIGTERM: drains usage) and counts the usage events it stored. */
  finish(): Promise<{ exitCode: number | null; usageEvents: number }>;
}

export interface GatewaySetup {
  workDirectory: string;
  mockPort: number;
  /** A stream's events spaced this far apart, for the `bench-chat-slow` model. */
  slowDelayMs: number;
  /** The same for `bench-chat-hold`, whose streams stay open while many are opened at once. */
  holdDelayMs: number;
  dimensions: number;
  postgres: boolean;
  redisUrl: string;
  logLevel: string;
  /** Extra node flags for the gateway process (e.g. --cpu-prof). */
  nodeFlags: string[];
  /** Another checkout's bin/model-gateway.js, to measure two versions side by side (default: this one's). */
  bin?: string;
  /** `usage.durability` (docs/usage-durability.md); the configuration's default when absent. */
  durability?: string;
  /** Traces on (docs/tracing.md), exported to the mock upstream's OTLP endpoint. */
  traces?: boolean;
  /**
   * Another instance of the same fleet: this gateway's database (and Redis) and key; no
   * account or key is made, and `finish` leaves the database to its owner.
   */
  sameFleetAs?: GatewayUnderTest;
  /** `request_log.enabled: false` (docs/request-log.md); the request log is on by default. */
  requestLogOff?: boolean;
  /** `bench-chat` served by three deployments (docs/routing.md), each a provider of its own on the same mock. */
  threeDeployments?: boolean;
  /**
   * The `bench-bedrock` model, configured only when its scenario runs: a `--compare` build
   * older than the bedrock provider type refuses a configuration that names it.
   */
  bedrock: boolean;
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'model-gateway.js');
/** Rate limits stay on, high enough that the benchmark's own traffic is never refused. */
const KEY_RPM = 10_000_000;
// The admin API allows at most 1e9 tokens per minute (Postgres stores limits as 32-bit integers).
const KEY_TPM = 1_000_000_000;

function configYaml(setup: GatewaySetup): string {
  const upstream = `http://127.0.0.1:${setup.mockPort}`;
  const pricing = '{ input_per_million: 0.15, output_per_million: 0.6 }';
  return `# Written by bench/gateway-process.ts for one benchmark run.
limits:
  max_streams_per_key: 5000
providers:
  bench:
    type: openai
    base_url: ${upstream}/v1
    api_key_env: BENCH_UPSTREAM_KEY
${
  setup.threeDeployments
    ? ['bench-b', 'bench-c']
        .map((name) => `  ${name}:\n    type: openai\n    base_url: ${upstream}/v1\n    api_key_env: BENCH_UPSTREAM_KEY\n`)
        .join('')
    : ''
}  bench-slow:
    type: openai
    base_url: ${upstream}/delay-${setup.slowDelayMs}/v1
    api_key_env: BENCH_UPSTREAM_KEY
  bench-hold:
    type: openai
    base_url: ${upstream}/delay-${setup.holdDelayMs}/v1
    api_key_env: BENCH_UPSTREAM_KEY
  bench-anthropic:
    type: anthropic
    base_url: ${upstream}
    api_key_env: BENCH_UPSTREAM_KEY
${setup.bedrock ? `  bench-bedrock:\n    type: bedrock\n    base_url: ${upstream}\n    options: { region: us-east-1 }\n` : ''}models:
  - id: bench-chat
${setup.threeDeployments ? '    deployments:\n' + ['bench', 'bench-b', 'bench-c'].map((name) => `      - { id: ${name}-deployment, provider: ${name} }\n`).join('') : '    provider: bench\n'}    capabilities: [chat, function_calling, json_mode]
    context_window: 128000
    pricing: ${pricing}
  - id: bench-chat-slow
    provider: bench-slow
    capabilities: [chat]
    context_window: 128000
    pricing: ${pricing}
  - id: bench-chat-hold
    provider: bench-hold
    capabilities: [chat]
    context_window: 128000
    pricing: ${pricing}
  - id: bench-claude
    provider: bench-anthropic
    capabilities: [chat, function_calling]
    context_window: 200000
    pricing: ${pricing}
${
  setup.bedrock
    ? `  - id: bench-bedrock\n    provider: bench-bedrock\n    upstream_model: ${BEDROCK_BENCH_MODEL}\n    capabilities: [chat]\n` +
      `    context_window: 300000\n    pricing: ${pricing}\n`
    : ''
}  - id: bench-embed
    provider: bench
    capabilities: [embeddings]
    dimensions: [${setup.dimensions}]
    context_window: 8191
    pricing: { input_per_million: 0.02, output_per_million: 0 }
${setup.durability ? `usage:\n  durability: ${setup.durability}\n` : ''}${setup.requestLogOff ? 'request_log:\n  enabled: false\n' : ''}`;
}

export async function startGateway(setup: GatewaySetup): Promise<GatewayUnderTest> {
  const bin = setup.bin ?? BIN;
  const fleet = setup.sameFleetAs;
  const database = fleet ? fleet.database : await createBenchDatabase(setup.postgres ? 'postgres' : 'sqlite');
  const configFile = path.join(setup.workDirectory, 'gateway.yaml');
  writeFileSync(configFile, configYaml(setup));
  const port = await freePort();
  const env: NodeJS.ProcessEnv = withServingEnv({
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    GATEWAY_CONFIG: configFile,
    DATABASE_URL: database.url,
    LOG_LEVEL: setup.logLevel,
    BENCH_UPSTREAM_KEY: 'sk-bench-upstream',
    // The Bedrock provider signs with these (the default credential chain reads them first).
    AWS_ACCESS_KEY_ID: 'AKIABENCHBENCHBENCH0',
    AWS_SECRET_ACCESS_KEY: 'bench-secret-access-key-bench-secret-key',
    AWS_EC2_METADATA_DISABLED: 'true',
    // Each gateway of a run its own journal, in its work directory (docs/usage-durability.md).
    USAGE_JOURNAL_DIR: path.join(setup.workDirectory, 'usage-journal'),
    ...(setup.postgres ? { REDIS_URL: setup.redisUrl } : {}),
    ...(setup.traces ? { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${setup.mockPort}` } : {}),
  });
  const cli = async (...args: string[]): Promise<Record<string, string>> => {
    const { stdout } = await promisify(execFile)(process.execPath, [bin, ...args], { env, cwd: ROOT });
    return JSON.parse(stdout) as Record<string, string>;
  };
  const authorization = fleet ? fleet.authorization : `Bearer ${await createKey(cli)}`;

  const logFile = path.join(setup.workDirectory, 'gateway.log');
  const gateway = await startServer(
    'gateway',
    [process.execPath, ...withServingFlags(setup.nodeFlags), bin, 'serve', '--port', String(port), '--host', '127.0.0.1'],
    {
      env,
      logFile,
      port,
      readyUrl: `http://127.0.0.1:${port}/healthz`,
    },
  );
  let store: Store | null = null;
  const openStore = async () => (store ??= await createStore(database.url));
  return {
    process: gateway,
    database,
    authorization,
    logFile,
    countUsage: async () => (await openStore()).countUsageEvents(),
    async finish() {
      const exitCode = await gateway.stop();
      try {
        return { exitCode, usageEvents: await (await openStore()).countUsageEvents() };
      } finally {
        await store?.close();
        if (!fleet) await database.drop();
      }
    },
  };
}

/** A bench account and its key, made by the CLI: the key's text. */
async function createKey(cli: (...args: string[]) => Promise<Record<string, string>>): Promise<string> {
  const account = await cli('accounts', 'create', '--name', 'bench');
  const key = await cli(
    'keys',
    'create',
    '--account',
    account.id ?? '',
    '--name',
    'bench',
    '--rpm',
    String(KEY_RPM),
    '--tpm',
    String(KEY_TPM),
  );
  return key.key ?? '';
}
