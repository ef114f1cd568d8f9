import { ReasoningEffortSchema, type ReasoningEffort } from '../../contract';
import type { ReasoningRequest } from './types';

/**
 * Effort <-> token budget, the one table every translation uses (docs/chat-and-streaming.md,
 * "Reasoning"). A budget maps to the effort whose range holds it; an effort maps to a budget
 * inside its own range, so a budget -> effort -> budget round trip stays in the same range.
 *
 * | effort  | budget range     | budget sent for the effort |
 * |---------|------------------|----------------------------|
 * | none    | 0                | 0 (reasoning off)          |
 * | minimal | -                | 1024                       |
 * | low     | 1 – 4095         | 2048                       |
 * | medium  | 4096 – 16383     | 8192                       |
 * | high    | 16384 and more   | 24576                      |
 * | xhigh   | -                | 32768                      |
 */
const BUDGET_FOR_EFFORT: Readonly<Record<ReasoningEffort, number>> = {
  none: 0,
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 24576,
  xhigh: 32768,
};

export function effortForBudget(budgetTokens: number): ReasoningEffort {
  if (budgetTokens < 4096) return 'low';
  if (budgetTokens < 16384) return 'medium';
  return 'high';
}

/** The budget to send; undefined when the request leaves the amount to the model. */
export function reasoningBudget(reasoning: ReasoningRequest): number | undefined {
  if (reasoning.budgetTokens !== undefined) return reasoning.budgetTokens;
  return reasoning.effort === undefined ? undefined : BUDGET_FOR_EFFORT[reasoning.effort];
}

/** The reasoning of a chat request's `reasoning_effort` (OpenAI's field); undefined when absent or not an effort. */
export function reasoningFromEffort(value: unknown): ReasoningRequest | undefined {
  return typeof value === 'string' && EFFORTS.has(value) ? { effort: value as ReasoningEffort } : undefined;
}

/** The efforts, checked without zod: the chat route asks on every request. */
const EFFORTS: ReadonlySet<string> = new Set(ReasoningEffortSchema.options);
