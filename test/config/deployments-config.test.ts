import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfigText, type ConfigProblem } from '../../server/config/load-config';

/** docs/routing.md: a model's deployments in the catalogue. */
const FILE = 'gateway.yaml';

const PROVIDERS = `providers:
  a: { type: mock }
  b: { type: mock }
  c: { type: mock }
`;

const FLEET = `${PROVIDERS}models:
  - id: fleet
    routing: { strategy: least-busy, affinity: prefix, affinity_ttl: 600 }
    upstream_model: fleet-upstream
    capabilities: [chat]
    context_window: 8000
    pricing: { input_per_million: 1, output_per_million: 2 }
    deployments:
      - { id: fleet-a, provider: a, weight: 3 }
      - { id: fleet-b, provider: b, upstream_model: other-name, rpm: 60, tpm: 100000 }
      - { id: fleet-c, provider: c, priority: 1 }
  - id: single
    provider: a
    capabilities: [chat]
    context_window: 8000
    pricing: { input_per_million: 1, output_per_million: 2 }
`;

function problemsOf(text: string): ConfigProblem[] {
  try {
    parseConfigText(text, FILE, {});
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

function lineOf(text: string, marker: string): number {
  const index = text.split('\n').findIndex((line) => line.includes(marker));
  if (index < 0) throw new Error(`marker not found: ${marker}`);
  return index + 1;
}

describe('deployments in the catalogue', () => {
  it('reads each deployment with its defaults, the model upstream name as the default, and the routing settings', () => {
    const [fleet, single] = parseConfigText(FLEET, FILE, {}).models;
    expect(fleet?.routing).toEqual({ strategy: 'least-busy', affinity: 'prefix', affinityTtl: 600 });
    expect(fleet?.deployments).toEqual([
      { id: 'fleet-a', model: 'fleet', provider: 'a', upstreamModel: 'fleet-upstream', weight: 3, priority: 0, rpm: null, tpm: null },
      { id: 'fleet-b', model: 'fleet', provider: 'b', upstreamModel: 'other-name', weight: 1, priority: 0, rpm: 60, tpm: 100000 },
      { id: 'fleet-c', model: 'fleet', provider: 'c', upstreamModel: 'fleet-upstream', weight: 1, priority: 1, rpm: null, tpm: null },
    ]);
    // The first deployment's provider names the model where one is meant (owned_by).
    expect(fleet).toMatchObject({ provider: 'a', ownedBy: 'a' });
    expect(single?.deployments).toEqual([
      { id: 'single', model: 'single', provider: 'a', upstreamModel: 'single', weight: 1, priority: 0, rpm: null, tpm: null },
    ]);
    expect(single?.routing).toEqual({ strategy: 'weighted', affinity: 'session', affinityTtl: 3600 });
  });

  it('refuses a model with both provider and deployments, and one with neither, at their lines', () => {
    const both = FLEET.replace('  - id: fleet\n', '  - id: fleet\n    provider: a\n');
    expect(problemsOf(both)).toEqual([
      expect.objectContaining({
        path: 'models[0].deployments',
        line: lineOf(both, '{ id: fleet-a'),
        message: expect.stringMatching(/not both/),
      }),
    ]);
    const neither = FLEET.replace('    provider: a\n    capabilities', '    capabilities');
    expect(problemsOf(neither)).toEqual([
      expect.objectContaining({ path: 'models[1].provider', message: expect.stringMatching(/is required/) }),
    ]);
  });

  it('refuses a deployment id used twice in the file, a model id included, and an unknown provider', () => {
    const text = FLEET.replace('{ id: fleet-b, provider: b', '{ id: fleet-a, provider: b').replace(
      '{ id: fleet-c, provider: c',
      '{ id: single, provider: nowhere',
    );
    const problems = problemsOf(text);
    expect(problems).toEqual([
      expect.objectContaining({
        path: 'models[0].deployments[1].id',
        line: lineOf(text, '{ id: fleet-a, provider: b'),
        message: 'duplicate deployment id "fleet-a" (first declared as models[0].deployments[0])',
      }),
      expect.objectContaining({
        path: 'models[0].deployments[2].provider',
        line: lineOf(text, 'id: single, provider: nowhere'),
        message: 'unknown provider "nowhere" (declared: a, b, c)',
      }),
      // The deployment named like the model `single` comes first in the file.
      expect.objectContaining({
        path: 'models[1].id',
        line: lineOf(text, '- id: single'),
        message: 'duplicate deployment id "single" (first declared as models[0].deployments[2])',
      }),
    ]);
  });

  it('refuses bad weights, priorities, strategies and unknown keys of a deployment', () => {
    const text = FLEET.replace('weight: 3', 'weight: 0')
      .replace('priority: 1', 'priority: -1')
      .replace('strategy: least-busy', 'strategy: fastest')
      .replace('rpm: 60', 'rpm: 60, region: eu');
    const paths = problemsOf(text).map((problem) => problem.path);
    expect(paths).toEqual([
      'models[0].routing.strategy',
      'models[0].deployments[0].weight',
      'models[0].deployments[1].region',
      'models[0].deployments[2].priority',
    ]);
  });

  it('refuses an empty deployments list', () => {
    const text = `${PROVIDERS}models:
  - id: fleet
    capabilities: [chat]
    context_window: 8000
    pricing: { input_per_million: 1, output_per_million: 2 }
    deployments: []
`;
    expect(problemsOf(text)).toEqual([
      expect.objectContaining({ path: 'models[0].deployments', line: 10, message: 'must contain at least 1 element(s)' }),
    ]);
  });
});
