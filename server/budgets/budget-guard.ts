import type { Budget, Store } from '../db/types';
import { GatewayError, invalidRequest } from '../errors/gateway-error';
import type { CachedApiKey } from '../keys/key-cache';
import type { GatewayMetrics } from '../metrics/gateway-metrics';
import type { ReservationFields } from '../rate-limit/key-limiter';
import { femtoToUsdText } from '../usage/cost';
import type { BudgetCounterRequest, BudgetStore } from './budget-store';
import { budgetWindow, type BudgetWindow } from './budget-window';

/** The response header of docs/operator-controls.md, spend budgets. */
export const BUDGET_REMAINING_HEADER = 'x-gateway-budget-remaining-usd';

const HOUR_MS = 3_600_000;
/** A `total` counter untouched this long is dropped; its next use seeds it from the ledger again. */
const TOTAL_COUNTER_TTL_MS = 7 * 24 * HOUR_MS;

interface AppliedBudget {
  scope: 'key' | 'account';
  budget: Budget;
  window: BudgetWindow;
  counter: string;
  seedScope: { keyId: string } | { accountId: string };
}

/** What a granted request holds until it is settled with its exact cost. */
export interface BudgetReservation {
  applied: AppliedBudget[];
  cost: bigint;
  settled: boolean;
}

export interface BudgetGuardDependencies {
  store: BudgetStore;
  /** The ledger: spend of whole days (the daily rollup). */
  spendOfDays: Store['spendOfDays'];
  /** Writes the usage events still buffered in this instance, so that the ledger has them. */
  flushUsage: () => Promise<void>;
  metrics: Pick<GatewayMetrics, 'budgetAlerts'>;
  logger: { warn(object: object, message: string): void };
  now: () => number;
}

/**
 * Spend budgets of a key and its account (docs/operator-controls.md): a request reserves its
 * worst-case cost in every budget that applies, atomically (all or none), and settles its exact
 * cost after. A counter's first use in a window seeds it from the ledger.
 */
export function createBudgetGuard(dependencies: BudgetGuardDependencies) {
  const { store } = dependencies;
  const seeding = new Map<string, Promise<bigint>>();

  const applicable = (key: CachedApiKey, at: number): AppliedBudget[] => {
    const applied: AppliedBudget[] = [];
    const add = (scope: AppliedBudget['scope'], budget: Budget | null, owner: string) => {
      if (budget === null) return;
      const window = budgetWindow(budget.period, at);
      applied.push({
        scope,
        budget,
        window,
        counter: `budget:${scope}:${owner}:${budget.period}:${budget.setAt}:${window.startDay}`,
        seedScope: scope === 'key' ? { keyId: owner } : { accountId: owner },
      });
    };
    add('key', key.budget, key.id);
    add('account', key.accountBudget, key.accountId);
    return applied;
  };

  const seedOf = (applied: AppliedBudget): Promise<bigint> => {
    let running = seeding.get(applied.counter);
    if (running === undefined) {
      running = dependencies
        .flushUsage()
        .then(() => dependencies.spendOfDays(applied.seedScope, applied.window.startDay, applied.window.endDay))
        .finally(() => seeding.delete(applied.counter));
      seeding.set(applied.counter, running);
    }
    return running;
  };

  const ttlOf = (applied: AppliedBudget, at: number): number =>
    applied.window.end === null ? TOTAL_COUNTER_TTL_MS : Math.max(1, applied.window.end - at) + HOUR_MS;

  return {
    /**
     * Reserves `cost` in every budget of the key and its account at instant `at`. Throws 400 when
     * the cost exceeds a budget's whole amount, 429 budget_exceeded when it does not fit now.
     * Answers the reservation and the headers for the reply (none without a budget).
     */
    async reserve(
      key: CachedApiKey,
      at: number,
      cost: bigint,
      promptCost: bigint,
      fields: ReservationFields,
    ): Promise<{ reservation: BudgetReservation | null; headers: Record<string, string> }> {
      const applied = applicable(key, at);
      if (applied.length === 0) return { reservation: null, headers: {} };
      for (const budget of applied) {
        if (cost <= budget.budget.amountFemtoUsd) continue;
        const param = promptCost > budget.budget.amountFemtoUsd ? fields.prompt : fields.completion;
        throw invalidRequest(
          'request_too_large',
          `This request may cost up to ${femtoToUsdText(cost)} USD, more than the ${describe(budget)} of ` +
            `${femtoToUsdText(budget.budget.amountFemtoUsd)} USD, so it could never pass. ` +
            (param === fields.prompt ? 'Shorten the prompt.' : `Lower ${param}.`),
          param,
        );
      }
      const requests: BudgetCounterRequest[] = applied.map((budget) => ({
        id: budget.counter,
        amount: budget.budget.amountFemtoUsd,
        cost,
        ttlMs: ttlOf(budget, at),
      }));
      let result = await store.reserve(requests);
      if (result.kind === 'unseeded') {
        const seeds = await Promise.all(applied.map(seedOf));
        result = await store.reserve(requests.map((request, index) => ({ ...request, seed: seeds[index] })));
      }
      if (result.kind === 'unseeded') throw new Error('budget store: a seeded counter is still absent');
      const { totals } = result;
      if (result.kind === 'refused') {
        // Of the budgets that refuse, the one that resets last (never, for `total`) says when to retry.
        let index = -1;
        applied.forEach((budget, position) => {
          if ((totals[position] ?? 0n) + cost <= budget.budget.amountFemtoUsd) return;
          const end = budget.window.end ?? Number.POSITIVE_INFINITY;
          if (index === -1 || end > (applied[index]?.window.end ?? Number.POSITIVE_INFINITY)) index = position;
        });
        const refusing = applied[Math.max(0, index)] as AppliedBudget;
        const headers: Record<string, string> = { 'x-should-retry': 'false', [BUDGET_REMAINING_HEADER]: remainingText(applied, totals) };
        if (refusing.window.end !== null) headers['retry-after'] = String(Math.max(1, Math.ceil((refusing.window.end - at) / 1000)));
        throw new GatewayError(
          429,
          'insufficient_quota',
          'budget_exceeded',
          `Budget exceeded: this request may cost up to ${femtoToUsdText(cost)} USD and the ${describe(refusing)} of ` +
            `${femtoToUsdText(refusing.budget.amountFemtoUsd)} USD has ` +
            `${femtoToUsdText(positive(refusing.budget.amountFemtoUsd - (totals[Math.max(0, index)] ?? 0n)))} USD left` +
            (refusing.window.end === null ? '.' : ' until the period resets (retry-after).'),
          { headers },
        );
      }
      return { reservation: { applied, cost, settled: false }, headers: { [BUDGET_REMAINING_HEADER]: remainingText(applied, totals) } };
    },

    /** Replaces the reservation with the exact cost (0 for a call refused after reserving); alerts on thresholds crossed. */
    async settle(reservation: BudgetReservation, exact: bigint): Promise<void> {
      if (reservation.settled) return;
      reservation.settled = true;
      for (const applied of reservation.applied) {
        const settled = await store.settle(applied.counter, exact - reservation.cost, exact);
        if (settled === null || exact === 0n) continue;
        for (const fraction of applied.budget.alertAt) {
          const threshold = (applied.budget.amountFemtoUsd * BigInt(Math.round(fraction * 1e6))) / 1_000_000n;
          if (settled < threshold || settled - exact >= threshold) continue;
          if (!(await store.firstTime(`${applied.counter}:alert:${fraction}`, ttlOf(applied, dependencies.now())))) continue;
          dependencies.metrics.budgetAlerts.inc({ scope: applied.scope, threshold: String(fraction) });
          dependencies.logger.warn(
            {
              scope: applied.scope,
              owner: 'keyId' in applied.seedScope ? applied.seedScope.keyId : applied.seedScope.accountId,
              period: applied.budget.period,
              window_start: applied.window.startDay,
              threshold: fraction,
              spent_usd: femtoToUsdText(settled),
              budget_usd: femtoToUsdText(applied.budget.amountFemtoUsd),
            },
            'spend budget alert threshold reached',
          );
        }
      }
    },
  };
}

export type BudgetGuard = ReturnType<typeof createBudgetGuard>;

const PERIOD_WORDS: Readonly<Record<Budget['period'], string>> = { day: 'daily', week: 'weekly', month: 'monthly', total: 'total' };

const describe = (applied: AppliedBudget): string =>
  `${applied.scope === 'key' ? "key's" : "account's"} ${PERIOD_WORDS[applied.budget.period]} budget`;

const positive = (value: bigint): bigint => (value > 0n ? value : 0n);

/** The smallest amount left across the budgets, after this request's reservation. */
function remainingText(applied: AppliedBudget[], totals: bigint[]): string {
  let smallest: bigint | null = null;
  applied.forEach((budget, index) => {
    const left = positive(budget.budget.amountFemtoUsd - (totals[index] ?? 0n));
    if (smallest === null || left < smallest) smallest = left;
  });
  return femtoToUsdText(smallest ?? 0n);
}
