import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../server/config/load-config';
import { problemsOf } from './config-error-of';
import { createProviderRegistry } from '../../server/providers/registry';
import { vertexHost, vertexModelUrl } from '../../server/providers/vertex/vertex-options';

/** The `vertex` provider type's configuration (docs/vertex.md). */

const FILE = 'gateway.yaml';
const config = (options: string) => `providers:
  vertex:
    type: vertex
    options: ${options}
models:
  - id: claude
    provider: vertex
    upstream_model: claude-sonnet-4@20250514
    capabilities: [chat]
    context_window: 200000
    pricing: { input_per_million: 3, output_per_million: 15 }
`;

describe('vertex provider configuration', () => {
  it('needs no base_url or key, and builds an adapter for each publisher', () => {
    const parsed = parseConfigText(config('{ project: my-project-123, region: global, publisher: anthropic }'), FILE, {});
    expect(parsed.providers.vertex).toMatchObject({ type: 'vertex', baseUrl: '', apiKey: '' });
    const registry = createProviderRegistry({
      providers: [
        {
          name: 'claude',
          type: 'vertex',
          baseUrl: '',
          apiKey: '',
          options: { project: 'my-project-123', region: 'global', publisher: 'anthropic' },
        },
        { name: 'gemini', type: 'vertex', baseUrl: '', apiKey: '', options: { project: 'my-project-123', region: 'us-central1' } },
      ],
      http: { request: () => Promise.reject(new Error('no network in this test')) },
      now: () => 0,
      generateId: () => 'id',
    });
    expect(registry.get('claude').type).toBe('vertex');
    expect(registry.get('claude').messages).toBeDefined();
    expect(registry.get('gemini').messages).toBeUndefined();
  });

  it('reports a missing project, a bad region and an unknown option with their lines', () => {
    const problems = problemsOf(config('{ region: us_east5, publisher: anthropic, key_file: x.json }'));
    expect(problems.map((problem) => problem.path).sort()).toEqual([
      'providers.vertex.options.key_file',
      'providers.vertex.options.project',
      'providers.vertex.options.region',
    ]);
    expect(problems.every((problem) => problem.line === 4)).toBe(true);
    expect(problems.find((problem) => problem.path.endsWith('region'))?.message).toMatch(/Vertex AI location/);
  });

  it('addresses regional and global endpoints', () => {
    expect(vertexHost('us-east5')).toBe('https://us-east5-aiplatform.googleapis.com');
    expect(vertexHost('global')).toBe('https://aiplatform.googleapis.com');
    const options = { project: 'my-project-123', region: 'global', publisher: 'anthropic' as const };
    expect(vertexModelUrl(vertexHost('global'), options, 'claude-sonnet-4@20250514', 'rawPredict')).toBe(
      'https://aiplatform.googleapis.com/v1/projects/my-project-123/locations/global/publishers/anthropic/models/claude-sonnet-4@20250514:rawPredict',
    );
  });
});
