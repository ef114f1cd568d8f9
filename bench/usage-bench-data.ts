import type { Store } from '../server/db/types';
import { hashKey } from '../server/keys/key-text';
import { buildPricing } from '../server/config/price';
import { requestCostFemtoUsd } from '../server/usage/cost';
import type { UsageEvent } from '../server/usage/types';

/**
 * The benchmark's synthetic tenant population and traffic: deterministic (a seeded PRNG), so
 * two runs insert the same history. One big account (the report under test) and smaller ones
 * whose rollup rows interleave with it, as on a shared production table.
 */
export interface Population {
  accounts: Array<{ id: string; keyIds: string[] }>;
  bigAccountId: string;
}

export interface PopulationOptions {
  accounts: number;
  bigAccountKeys: number;
  otherAccountKeys: number;
}

const DAY_MS = 86_400_000;
/** mock-text's prices (0.0375 / 0.15 USD per million), prices floats drift on. */
const PRICING = buildPricing({ input_per_million: 0.0375, output_per_million: 0.15 }, (key) =>
  key === 'input_per_million' ? 37_500_000n : 150_000_000n,
);

export async function createPopulation(store: Store, options: PopulationOptions, createdAt: Date): Promise<Population> {
  const accounts: Population['accounts'] = [];
  for (let accountIndex = 0; accountIndex < options.accounts; accountIndex += 1) {
    const id = `acct_bench_${accountIndex}`;
    await store.createAccount({ id, name: `bench account ${accountIndex}`, createdAt });
    const keyCount = accountIndex === 0 ? options.bigAccountKeys : options.otherAccountKeys;
    const keyIds: string[] = [];
    for (let keyIndex = 0; keyIndex < keyCount; keyIndex += 1) {
      const keyId = `key_bench_${accountIndex}_${keyIndex}`;
      await store.createApiKey({
        id: keyId,
        accountId: id,
        name: `key ${String(keyIndex).padStart(4, '0')}`,
        keyHash: hashKey(`bench key ${accountIndex}:${keyIndex}`),
        hint: `sk-...${String(keyIndex).padStart(4, '0')}`,
        rpm: null,
        tpm: null,
        // A second apart, so the report's ordering has work to do.
        createdAt: new Date(createdAt.getTime() + keyIndex * 1000),
      });
      keyIds.push(keyId);
    }
    accounts.push({ id, keyIds });
  }
  return { accounts, bigAccountId: accounts[0]?.id ?? '' };
}

/** sfc32 (https://pracrand.sourceforge.net/RNG_engines.txt): small, fast, seedable. */
export function seededRandom(seed: number): () => number {
  let a = 0x9e3779b9;
  let b = 0x243f6a88;
  let c = 0xb7e15162;
  let d = seed >>> 0;
  const next = (): number => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let warmUp = 0; warmUp < 15; warmUp += 1) next();
  return next;
}

/** Cumulative Zipf-like weights (exponent 1): a few hot keys, a long tail of occasional ones. */
function cumulativeWeights(count: number): Float64Array {
  const cumulative = new Float64Array(count);
  let sum = 0;
  for (let index = 0; index < count; index += 1) {
    sum += 1 / (index + 1);
    cumulative[index] = sum;
  }
  for (let index = 0; index < count; index += 1) cumulative[index] = (cumulative[index] ?? 0) / sum;
  return cumulative;
}

function pick(cumulative: Float64Array, random: number): number {
  let low = 0;
  let high = cumulative.length - 1;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((cumulative[middle] ?? 1) < random) low = middle + 1;
    else high = middle;
  }
  return low;
}

export interface TrafficOptions {
  /** Events in this run. */
  events: number;
  /** Spread evenly (in time order) over [firstInstant, firstInstant + days). */
  firstInstant: number;
  days: number;
  /** Share of the events that belong to the big account. */
  bigAccountShare: number;
  seed: number;
  /** Numbering of request ids, so slices of one history never collide. */
  sequenceOffset?: number;
  /** Events [from, to) of the history; default all. */
  from?: number;
  to?: number;
}

/** The events of the history, in arrival order, generated lazily (1M objects need not exist at once). */
export function* traffic(population: Population, options: TrafficOptions): Generator<UsageEvent> {
  const random = seededRandom(options.seed);
  const [big, ...others] = population.accounts;
  if (!big) return;
  const bigWeights = cumulativeWeights(big.keyIds.length);
  const otherWeights = others.map((account) => cumulativeWeights(account.keyIds.length));
  const spacing = (options.days * DAY_MS) / options.events;
  const from = options.from ?? 0;
  const to = options.to ?? options.events;
  for (let index = 0; index < to; index += 1) {
    // Draw for every index so a slice gets the same events as the whole history would.
    const inBig = random() < options.bigAccountShare || others.length === 0;
    const otherIndex = Math.floor(random() * others.length);
    const keyRandom = random();
    const promptTokens = 20 + Math.floor(random() * 2000);
    const completionTokens = Math.floor(random() * 800);
    if (index < from) continue;
    const account = inBig ? big : (others[otherIndex] ?? big);
    const weights = inBig ? bigWeights : (otherWeights[otherIndex] ?? bigWeights);
    const keyId = account.keyIds[pick(weights, keyRandom)] ?? '';
    yield {
      requestId: `req_${(options.sequenceOffset ?? 0) + index}`,
      accountId: account.id,
      keyId,
      model: 'mock-text',
      provider: 'mock',
      receivedAt: Math.floor(options.firstInstant + index * spacing),
      promptTokens,
      completionTokens,
      cachedTokens: 0,
      cacheWriteTokens: 0,
      cacheWrite1hTokens: 0,
      reasoningTokens: 0,
      costFemtoUsd: requestCostFemtoUsd(PRICING, { promptTokens, completionTokens }),
      estimated: false,
      stream: (index & 3) === 0,
      status: 200,
      errorCode: null,
      latencyMs: 120 + (index % 900),
    };
  }
}
