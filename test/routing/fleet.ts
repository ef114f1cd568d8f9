import { afterAll, beforeAll, beforeEach } from 'vitest';
import { chatCompletionReply, startMockOpenAiUpstream, type MockOpenAiUpstream } from '../helpers/mock-openai-upstream';
import { startTestGateway, type TestGateway, type TestGatewayOptions } from '../helpers/test-gateway';

/**
 * A model served by three deployments, each an OpenAI-type mock upstream of its own
 * (docs/routing.md), for the routing tests: `fleet` lists `dep-a`, `dep-b`, `dep-c` on the
 * upstreams `a`, `b`, `c`, with the routing and deployment settings a test gives.
 */
export interface FleetSettings {
  /** The model's `routing` block (a YAML flow mapping). */
  routing?: string;
  /** Extra settings of each deployment (YAML flow mapping members), by deployment letter. */
  deployments?: Partial<Record<'a' | 'b' | 'c', string>>;
  /** More deployments of `fleet` after `dep-c`, whole YAML list lines (e.g. one on the `mock` provider). */
  moreDeployments?: string;
  /** Top-level sections (upstream, limits), whole lines. */
  sections?: string;
}

export const LETTERS = ['a', 'b', 'c'] as const;
export type Letter = (typeof LETTERS)[number];

export function fleetConfig(upstreams: Record<Letter, MockOpenAiUpstream>, settings: FleetSettings = {}): string {
  const deployment = (letter: Letter) =>
    `      - { id: dep-${letter}, provider: up-${letter}${settings.deployments?.[letter] ? `, ${settings.deployments[letter]}` : ''} }`;
  return `
upstream: { connect_timeout_ms: 1000, first_byte_timeout_ms: 2000, idle_timeout_ms: 2000, max_retries: 2, retry_base_delay_ms: 1 }
${settings.sections ?? ''}
providers:
${LETTERS.map((letter) => `  up-${letter}: { type: openai, base_url: ${upstreams[letter].baseUrl} }`).join('\n')}
  mock: { type: mock }
models:
  - id: fleet
    routing: ${settings.routing ?? '{}'}
    capabilities: [chat, function_calling]
    context_window: 32000
    pricing: { input_per_million: 1, output_per_million: 2, cache_read_per_million: 0.1 }
    deployments:
${LETTERS.map(deployment).join('\n')}
${settings.moreDeployments ?? ''}
  - id: fleet-embed
    capabilities: [embeddings]
    context_window: 8000
    pricing: { input_per_million: 1, output_per_million: 0 }
    deployments:
      - { id: embed-a, provider: up-a }
      - { id: embed-b, provider: up-b }
`;
}

export const OK = (letter: Letter) => chatCompletionReply(`from ${letter}`, { prompt: 5, completion: 2 });

/**
 * For the enclosing describe: three mock upstreams (each answering "from <letter>" by default)
 * and a gateway on `fleetConfig`, with a key, its clock `clock.now`. Before each test the mocks'
 * records are cleared and the clock moves two hours on. Read the fields inside tests.
 */
export function useFleet(settings: FleetSettings = {}, options: TestGatewayOptions = {}) {
  const fleet = {
    upstreams: {} as Record<Letter, MockOpenAiUpstream>,
    gateway: undefined as unknown as TestGateway,
    key: '',
    clock: { now: Date.now() },
    /** Which deployment answered each of these requests' replies (`x-gateway-deployment`). */
    counts(deployments: (string | undefined)[]): Record<string, number> {
      const counts: Record<string, number> = {};
      for (const id of deployments) counts[id ?? 'none'] = (counts[id ?? 'none'] ?? 0) + 1;
      return counts;
    },
  };
  beforeAll(async () => {
    for (const letter of LETTERS) fleet.upstreams[letter] = await startMockOpenAiUpstream();
    fleet.gateway = await startTestGateway({
      configYaml: fleetConfig(fleet.upstreams, settings),
      now: () => fleet.clock.now,
      ...options,
    });
    const account = await fleet.gateway.createAccount();
    fleet.key = (await fleet.gateway.createKey(account)).key;
  });
  beforeEach(() => {
    // Two hours on: every cooldown (at most cooldown_max_ms) and session binding (1 h) of an earlier test is over.
    fleet.clock.now += 2 * 3_600_000;
    for (const letter of LETTERS) {
      const upstream = fleet.upstreams[letter];
      upstream.requests.length = 0;
      upstream.setDefault(OK(letter));
    }
  });
  afterAll(async () => {
    await fleet.gateway?.close();
    for (const letter of LETTERS) await fleet.upstreams[letter]?.close();
  });
  return fleet;
}
