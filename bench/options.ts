import path from 'node:path';
import { parseArgs } from 'node:util';

/** The command line of `npm run bench` (bench/run.ts; docs/performance.md lists the options). */
export const USAGE = `npm run bench -- [options]
  --duration S       measured seconds per target and scenario, split over the rounds (default 8)
  --rounds N         rounds per scenario, targets alternating within each (default 2)
  --warmup S         warm-up seconds per target and scenario (default 3)
  --only IDS         scenarios to run, comma-separated: chat,stream,responses-stream,messages-stream,messages-translated,
                     bedrock-stream,embed-float,embed-base64,chat-1
  --postgres         the gateway on Postgres + Redis (BENCH_POSTGRES_URL, BENCH_REDIS_URL), the same gateway on SQLite
                     measured beside it in the same rounds as "gateway (SQLite)"
  --two-instances    with --postgres: also a second gateway on the same Postgres and Redis, and the chat load split
                     between the two at once (throughput and CPU per request of each, usage counted across both)
  --chunks N         content chunks of a streamed reply (default 20)
  --dimensions N     embedding size (default 1536)
  --open-streams N   streams held open at once (default 1000)
  --log-level L      the gateway's LOG_LEVEL; logs go to a file (default info: an access-log line per request)
  --cpu-prof DIR     run the gateway under node --cpu-prof, profile written to DIR
  --node-flags=".." extra node flags for the gateway process (e.g. --node-flags="--max-semi-space-size=8")
  --compare DIR      also measure the gateway of another checkout (built: npm install there), as "other gateway"
  --durability MODE  also measure this gateway with usage.durability MODE (memory, journal, redis_stream) in
                     the same rounds, as "gateway (MODE durability)"; prints what the default mode costs
                     per request over it
  --traces           also measure this gateway with traces on (docs/tracing.md), exported to the mock's OTLP
                     endpoint, and with the request log off (docs/request-log.md), in the same rounds, as
                     "gateway (traces on)" and "gateway (request log off)", then each in paired rounds beside the
                     gateway (both under load at once); judged on those: traces on at most 10% more CPU per
                     request, the request log (bodies off) and, with --compare of a build without tracing,
                     traces off within the run's noise (5%)
  --deployments      also measure this gateway with the chat model served by three deployments (docs/routing.md:
                     weighted, session affinity, one mock behind three providers), in the same rounds, as
                     "gateway (three deployments)", then in paired rounds beside the gateway; judged on those: the
                     choice within the run's noise (5%) of one deployment
  --json-proxy       also measure bench/json-proxy.ts on the non-streaming scenarios, as "json proxy": parsing,
                     forwarding with undici and serializing, without the gateway's features
  --json FILE        also write the raw results as JSON
  --usage            also run the usage benchmark (bench/usage-bench.ts) on the same database kind`;

export interface Options {
  duration: number;
  rounds: number;
  warmup: number;
  only: string[] | null;
  postgres: boolean;
  twoInstances: boolean;
  chunks: number;
  dimensions: number;
  openStreams: number;
  logLevel: string;
  cpuProf: string | null;
  nodeFlags: string[];
  compare: string | null;
  durability: string | null;
  traces: boolean;
  deployments: boolean;
  jsonProxy: boolean;
  json: string | null;
  usage: boolean;
}

export function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      duration: { type: 'string' },
      rounds: { type: 'string' },
      warmup: { type: 'string' },
      only: { type: 'string' },
      postgres: { type: 'boolean', default: false },
      'two-instances': { type: 'boolean', default: false },
      chunks: { type: 'string' },
      dimensions: { type: 'string' },
      'open-streams': { type: 'string' },
      'log-level': { type: 'string' },
      'cpu-prof': { type: 'string' },
      'node-flags': { type: 'string' },
      compare: { type: 'string' },
      durability: { type: 'string' },
      traces: { type: 'boolean', default: false },
      deployments: { type: 'boolean', default: false },
      'json-proxy': { type: 'boolean', default: false },
      json: { type: 'string' },
      usage: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const number = (text: string | undefined, fallback: number) => {
    if (text === undefined) return fallback;
    const value = Number(text);
    if (!Number.isInteger(value) || value < 1) throw new Error(`expected a positive integer, got ${text}\n${USAGE}`);
    return value;
  };
  return {
    duration: number(values.duration, 8),
    rounds: number(values.rounds, 2),
    warmup: number(values.warmup, 3),
    only: values.only ? values.only.split(',').map((id) => id.trim()) : null,
    postgres: values.postgres === true || values['two-instances'] === true,
    twoInstances: values['two-instances'] === true,
    chunks: number(values.chunks, 20),
    dimensions: number(values.dimensions, 1536),
    openStreams: number(values['open-streams'], 1000),
    logLevel: values['log-level'] ?? 'info',
    cpuProf: values['cpu-prof'] ? path.resolve(values['cpu-prof']) : null,
    nodeFlags: (values['node-flags'] ?? '').split(/\s+/).filter((flag) => flag.length > 0),
    compare: values.compare ? path.resolve(values.compare) : null,
    durability: values.durability ?? null,
    traces: values.traces === true,
    deployments: values.deployments === true,
    jsonProxy: values['json-proxy'] === true,
    json: values.json ?? null,
    usage: values.usage === true,
  };
}
