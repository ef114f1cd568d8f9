import type { Registry } from 'prom-client';

/**
 * Counters and histograms of the request path, registered in a prom-client Registry as
 * custom metrics: GET /metrics and the cluster's AggregatorRegistry read them through `get()`,
 * which gives prom-client's own format (same text, same JSON). What differs is the cost of a
 * call: prom-client validates the label names and hashes the label object on every `inc` and
 * `observe` (six of them per model request); here a call joins the label values
 * in their declared order into a key and updates one Map entry. Label values are the strings
 * the callers pass (typed by the label names); values are not checked beyond that.
 */
type Labels<Name extends string> = Record<Name, string>;

interface MetricValue {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

/** What prom-client's Registry reads from a metric (`registerMetric` takes this shape). */
interface CustomMetric {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  aggregator: 'sum';
  get(): Promise<{ name: string; help: string; type: string; values: MetricValue[]; aggregator: 'sum' }>;
  reset(): void;
}

function seriesKey<Name extends string>(names: readonly Name[], labels: Labels<Name>): string {
  let key = '';
  for (const name of names) key += `${labels[name]}\u0000`;
  return key;
}

/** The label values of the first call of a series, in the caller's key order (prom-client prints them that way). */
const copyLabels = <Name extends string>(labels: Labels<Name>): Record<string, string> => ({ ...labels });

export class FastCounter<Name extends string> implements CustomMetric {
  readonly type = 'counter' as const;
  readonly aggregator = 'sum' as const;
  private readonly series = new Map<string, { labels: Record<string, string>; value: number }>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly Name[],
    registers: Registry[],
  ) {
    for (const registry of registers) registry.registerMetric(this as never);
  }

  inc(labels: Labels<Name>, value = 1): void {
    const key = seriesKey(this.labelNames, labels);
    const entry = this.series.get(key);
    if (entry) entry.value += value;
    else this.series.set(key, { labels: copyLabels(labels), value });
  }

  async get() {
    const values: MetricValue[] = [];
    for (const entry of this.series.values()) values.push({ labels: { ...entry.labels }, value: entry.value });
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  reset(): void {
    this.series.clear();
  }
}

export class FastHistogram<Name extends string> implements CustomMetric {
  readonly type = 'histogram' as const;
  readonly aggregator = 'sum' as const;
  private readonly series = new Map<string, { labels: Record<string, string>; counts: Float64Array; sum: number; count: number }>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly Name[],
    private readonly buckets: readonly number[],
    registers: Registry[],
  ) {
    for (const registry of registers) registry.registerMetric(this as never);
  }

  observe(labels: Labels<Name>, value: number): void {
    const key = seriesKey(this.labelNames, labels);
    let entry = this.series.get(key);
    if (!entry) {
      entry = { labels: copyLabels(labels), counts: new Float64Array(this.buckets.length), sum: 0, count: 0 };
      this.series.set(key, entry);
    }
    const buckets = this.buckets;
    for (let index = 0; index < buckets.length; index++) {
      if (value <= (buckets[index] as number)) {
        (entry.counts[index] as number)++;
        break;
      }
    }
    entry.sum += value;
    entry.count++;
  }

  /** prom-client's layout: cumulative `_bucket`s with `le` first among the labels, then `+Inf`, `_sum`, `_count`. */
  async get() {
    const values: MetricValue[] = [];
    const bucketName = `${this.name}_bucket`;
    for (const entry of this.series.values()) {
      let cumulative = 0;
      this.buckets.forEach((bound, index) => {
        cumulative += entry.counts[index] as number;
        values.push({ labels: { le: bound, ...entry.labels }, value: cumulative, metricName: bucketName });
      });
      values.push({ labels: { le: '+Inf', ...entry.labels }, value: entry.count, metricName: bucketName });
      values.push({ labels: { ...entry.labels }, value: entry.sum, metricName: `${this.name}_sum` });
      values.push({ labels: { ...entry.labels }, value: entry.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  reset(): void {
    this.series.clear();
  }
}
