import { describe, expect, it } from 'vitest';
import { COST_HEADER, Meter, meterOutcome } from '../../server/completions/meter';
import type { ModelConfig } from '../../server/config/load-config';
import { GatewayError } from '../../server/errors/gateway-error';
import type { InFlightUsage, UsageDurability } from '../../server/usage/durability';
import type { UsageEvent } from '../../server/usage/types';
import { admissionHarness, fakeKey, newContext, type Harness } from './admission-fakes';

/** The meter (completions/meter.ts) on fakes: the real limiter on an in-memory store, a fake clock, a fake journal. */
function modelOf(harness: Harness, id = 'chat-plain'): ModelConfig {
  const model = harness.config.models.find((entry) => entry.id === id);
  if (!model) throw new Error(id);
  return model;
}

function open(harness: Harness, options: { stream?: boolean; reserveTokens?: number; context?: ReturnType<typeof newContext> } = {}) {
  return Meter.open(harness.dependencies, {
    key: fakeKey(),
    requestId: 'req_1',
    receivedAt: harness.clock.now,
    stream: options.stream ?? false,
    reserveTokens: options.reserveTokens ?? 1000,
    context: options.context ?? newContext(),
    model: modelOf(harness),
    promptTokens: 40,
  });
}

/** A journal that keeps what it was given and resolves or rejects `finish` as told. */
class FakeJournal implements UsageDurability {
  up = true;
  failWrites = false;
  readonly begun: UsageEvent[] = [];
  readonly checkpoints: UsageEvent[] = [];
  readonly finished: UsageEvent[] = [];
  cancelled = 0;

  available(): boolean {
    return this.up;
  }

  begin(interrupted: UsageEvent): InFlightUsage {
    this.begun.push(interrupted);
    return {
      eventId: `evt_${this.begun.length}`,
      checkpoint: (event) => this.checkpoints.push(event),
      finish: (event) => {
        this.finished.push(event);
        return this.failWrites ? Promise.reject(new Error('disk full')) : Promise.resolve();
      },
      cancel: () => {
        this.cancelled++;
      },
    };
  }
}

describe('Meter', () => {
  it('records one usage event with the cost, and the cost header on a non-streamed 200', async () => {
    const harness = admissionHarness();
    const context = newContext();
    const meter = await open(harness, { context });
    harness.clock.now += 250;
    const model = modelOf(harness);
    await meter.finish(meterOutcome(model, { promptTokens: 1_000_000, completionTokens: 500_000 }, false, 200, null));
    await meter.finish(meterOutcome(model, { promptTokens: 1, completionTokens: 1 }, false, 200, null));
    expect(harness.usage.events).toHaveLength(1);
    // 1 USD per million prompt tokens, 2 per million completion tokens.
    expect(harness.usage.events[0]).toMatchObject({
      requestId: 'req_1',
      keyId: 'key_1',
      accountId: 'acct_1',
      model: 'chat-plain',
      provider: 'plain',
      promptTokens: 1_000_000,
      completionTokens: 500_000,
      costFemtoUsd: 2_000_000_000_000_000n,
      estimated: false,
      status: 200,
      errorCode: null,
      latencyMs: 250,
    });
    expect(context.responseHeaders?.[COST_HEADER]).toBe('2');
    expect([context.promptTokens, context.completionTokens, context.usageOutcome?.settled]).toEqual([1_000_000, 500_000, true]);
  });

  it('gives back the unused part of the reservation once the call is settled', async () => {
    const harness = admissionHarness();
    const meter = await open(harness, { reserveTokens: 6000 });
    await meter.finish(meterOutcome(modelOf(harness), { promptTokens: 30, completionTokens: 70 }, false, 200, null));
    await new Promise((resolve) => setImmediate(resolve));
    const context = newContext();
    await open(harness, { context, reserveTokens: 100 });
    // 10000 - 100 billed - 100 reserved now.
    expect(context.responseHeaders?.['x-ratelimit-remaining-tokens']).toBe('9800');
  });

  it('cancel records nothing and refunds the reservation; failed records the status with no tokens', async () => {
    const harness = admissionHarness();
    const cancelled = await open(harness, { reserveTokens: 5000 });
    cancelled.cancel();
    const failed = await open(harness, { reserveTokens: 100 });
    failed.failed(modelOf(harness), new GatewayError(502, 'upstream_error', 'upstream_unavailable', 'Down.'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(harness.usage.events).toHaveLength(1);
    expect(harness.usage.events[0]).toMatchObject({ status: 502, errorCode: 'upstream_unavailable', promptTokens: 0, completionTokens: 0 });
    const context = newContext();
    await open(harness, { context, reserveTokens: 100 });
    expect(context.responseHeaders?.['x-ratelimit-remaining-tokens']).toBe('9900');
  });

  it('refuses to open (503 usage_unavailable) while usage cannot be made durable', async () => {
    const harness = admissionHarness();
    const journal = new FakeJournal();
    journal.up = false;
    harness.dependencies.durability = journal;
    await expect(open(harness)).rejects.toMatchObject({ status: 503, code: 'usage_unavailable' });
    expect(journal.begun).toHaveLength(0);
  });

  it('journals what to bill if the process dies, checkpoints a stream at most once a second, and rejects a finish that could not be made durable', async () => {
    const harness = admissionHarness();
    const journal = new FakeJournal();
    harness.dependencies.durability = journal;
    const meter = await open(harness, { stream: true });
    expect(journal.begun[0]).toMatchObject({
      status: 499,
      errorCode: 'interrupted',
      promptTokens: 40,
      completionTokens: 0,
      estimated: true,
    });
    const model = modelOf(harness);
    let counted = 0;
    const tokens = () => ({ promptTokens: 40, completionTokens: ++counted });
    meter.checkpoint(model, tokens);
    harness.clock.now += 999;
    meter.checkpoint(model, tokens);
    harness.clock.now += 1;
    meter.checkpoint(model, tokens);
    expect(counted).toBe(1);
    expect(journal.checkpoints.map((event) => event.completionTokens)).toEqual([1]);
    journal.failWrites = true;
    await expect(meter.finish(meterOutcome(model, { promptTokens: 40, completionTokens: 9 }, false, 200, null))).rejects.toMatchObject({
      status: 503,
      code: 'usage_unavailable',
    });
    meter.checkpoint(model, tokens);
    expect(journal.checkpoints).toHaveLength(1);
  });
});
