import type { Registry } from 'prom-client';

/**
 * Counters and histograms of the request path, registered in a prom-client Registry as
 * custom metrics: GET /metrics and the cluster's AggregatorRegistry read them through `get()`,
 * which gives prom-client's own format (same text, same JSON). What differs is the cost of a
 * call: prom-client validates the label names and hashes the label object on every `inc` and
 * `observe` (six of them per model request); here a call finds its series by its label values
 * in their declared order, a Map per label (the values are mostly the same few strings, whose
 * hashes V8 keeps: no key string is built, flattened and hashed per call), and updates it.
 * Label values are the strings the callers pass (typed by the label names); values are not
 * checked beyond that.
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

/**
 * A metric's series, found by their label values: a Map per label, in the declared order,
 * the last one holding the series; `list` keeps them in the order they were first seen (the
 * order prom-client prints them in).
 */
class SeriesTree<Name extends string, Series> {
  private root = new Map<string, unknown>();
  readonly list: Series[] = [];

  constructor(private readonly labelNames: readonly Name[]) {}

  find(labels: Labels<Name>): Series | undefined {
    const names = this.labelNames;
    let level: Map<string, unknown> | undefined = this.root;
    const last = names.length - 1;
    for (let index = 0; index < last; index++) {
      level = level.get(`${labels[names[index] as Name]}`) as Map<string, unknown> | undefined;
      if (level === undefined) return undefined;
    }
    return level.get(`${labels[names[last] as Name]}`) as Series | undefined;
  }

  add(labels: Labels<Name>, series: Series): void {
    const names = this.labelNames;
    let level = this.root;
    const last = names.length - 1;
    for (let index = 0; index < last; index++) {
      const value = `${labels[names[index] as Name]}`;
      let next = level.get(value) as Map<string, unknown> | undefined;
      if (next === undefined) {
        next = new Map<string, unknown>();
        level.set(value, next);
      }
      level = next;
    }
    level.set(`${labels[names[last] as Name]}`, series);
    this.list.push(series);
  }

  clear(): void {
    this.root = new Map();
    this.list.length = 0;
  }
}

/** The label values of the first call of a series, in the caller's key order (prom-client prints them that way). */
const copyLabels = <Name extends string>(labels: Labels<Name>): Record<string, string> => ({ ...labels });

export class FastCounter<Name extends string> implements CustomMetric {
  readonly type = 'counter' as const;
  readonly aggregator = 'sum' as const;
  private readonly series: SeriesTree<Name, { labels: Record<string, string>; value: number }>;

  constructor(
    readonly name: string,
    readonly help: string,
    labelNames: readonly Name[],
    registers: Registry[],
  ) {
    this.series = new SeriesTree(labelNames);
    for (const registry of registers) registry.registerMetric(this as never);
  }

  inc(labels: Labels<Name>, value = 1): void {
    const entry = this.series.find(labels);
    if (entry) entry.value += value;
    else this.series.add(labels, { labels: copyLabels(labels), value });
  }

  async get() {
    const values: MetricValue[] = [];
    for (const entry of this.series.list) values.push({ labels: { ...entry.labels }, value: entry.value });
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  reset(): void {
    this.series.clear();
  }
}

export class FastHistogram<Name extends string> implements CustomMetric {
  readonly type = 'histogram' as const;
  readonly aggregator = 'sum' as const;
  private readonly series: SeriesTree<Name, { labels: Record<string, string>; counts: Float64Array; sum: number; count: number }>;

  constructor(
    readonly name: string,
    readonly help: string,
    labelNames: readonly Name[],
    private readonly buckets: readonly number[],
    registers: Registry[],
  ) {
    this.series = new SeriesTree(labelNames);
    for (const registry of registers) registry.registerMetric(this as never);
  }

  observe(labels: Labels<Name>, value: number): void {
    let entry = this.series.find(labels);
    if (!entry) {
      entry = { labels: copyLabels(labels), counts: new Float64Array(this.buckets.length), sum: 0, count: 0 };
      this.series.add(labels, entry);
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
    for (const entry of this.series.list) {
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
