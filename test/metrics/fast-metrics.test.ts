import { AggregatorRegistry, Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { FastCounter, FastHistogram } from '../../server/metrics/fast-metrics';

/**
 * The request path's counters and histograms (server/metrics/fast-metrics.ts) must read
 * exactly like prom-client's own: the same Prometheus text at GET /metrics, and the same
 * JSON for the cluster's AggregatorRegistry, after the same calls.
 */
const BUCKETS = [0.001, 0.01, 0.1, 1];
const observations: [Record<'route' | 'method', string>, number][] = [
  [{ route: '/v1/chat/completions', method: 'POST' }, 0.0004],
  [{ route: '/v1/chat/completions', method: 'POST' }, 0.05],
  [{ route: '/v1/embeddings', method: 'POST' }, 2.5],
  [{ route: '/v1/chat/completions', method: 'POST' }, 0.1],
  [{ route: 'say "hi"\\\n', method: 'GET' }, 0.01],
];
const increments: [Record<'model' | 'type', string>, number][] = [
  [{ model: 'gpt', type: 'prompt' }, 12],
  [{ model: 'gpt', type: 'completion' }, 3],
  [{ model: 'gpt', type: 'prompt' }, 30],
];

function promClientRegistry(): Registry {
  const registry = new Registry();
  const histogram = new Histogram({
    name: 'h_seconds',
    help: 'A histogram.',
    labelNames: ['route', 'method'],
    buckets: BUCKETS,
    registers: [registry],
  });
  const counter = new Counter({ name: 'c_total', help: 'A counter.', labelNames: ['model', 'type'], registers: [registry] });
  for (const [labels, value] of observations) histogram.observe(labels, value);
  for (const [labels, value] of increments) counter.inc(labels, value);
  return registry;
}

function fastRegistry(): Registry {
  const registry = new Registry();
  const histogram = new FastHistogram('h_seconds', 'A histogram.', ['route', 'method'] as const, BUCKETS, [registry]);
  const counter = new FastCounter('c_total', 'A counter.', ['model', 'type'] as const, [registry]);
  for (const [labels, value] of observations) histogram.observe(labels, value);
  for (const [labels, value] of increments) counter.inc(labels, value);
  return registry;
}

/** prom-client's JSON without its `exemplar: null` fields, which carry nothing. */
const withoutExemplars = (metrics: unknown): unknown =>
  JSON.parse(JSON.stringify(metrics, (key, value: unknown) => (key === 'exemplar' ? undefined : value)));

describe('fast metrics', () => {
  it('print the same Prometheus text as prom-client after the same calls', async () => {
    const expected = await promClientRegistry().metrics();
    expect(expected).toContain('h_seconds_bucket{le="0.1",route="/v1/chat/completions",method="POST"} 3');
    expect(await fastRegistry().metrics()).toBe(expected);
  });

  it('give the cluster aggregator the same JSON, and aggregate the same', async () => {
    const expected = await promClientRegistry().getMetricsAsJSON();
    const actual = await fastRegistry().getMetricsAsJSON();
    expect(withoutExemplars(actual)).toEqual(withoutExemplars(expected));
    const aggregated = (metrics: typeof expected) => AggregatorRegistry.aggregate([metrics, metrics] as never).metrics();
    expect(await aggregated(actual)).toBe(await aggregated(expected));
  });

  it('start empty and empty again on reset', async () => {
    const registry = new Registry();
    const counter = new FastCounter('c_total', 'A counter.', ['model'] as const, [registry]);
    expect(await registry.metrics()).toBe('# HELP c_total A counter.\n# TYPE c_total counter\n');
    counter.inc({ model: 'a' });
    registry.resetMetrics();
    expect(await registry.metrics()).toBe('# HELP c_total A counter.\n# TYPE c_total counter\n');
  });
});
