import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { replayJournal } from '../../server/usage/journal-replay';
import { decodeJournalLine, encodeJournalLine } from '../../server/usage/journal-line';
import { MemoryUsageSink, type UsageEvent } from '../../server/usage/types';
import { UsageJournal } from '../../server/usage/usage-journal';
import { FakeStore } from '../helpers/fake-store';
import { fakeUsageEvent } from '../helpers/fake-usage-event';

const silentLogger = { warn: () => {}, error: () => {}, info: () => {} };

function interruptedOf(event: UsageEvent): UsageEvent {
  return { ...event, completionTokens: 0, status: 499, errorCode: 'interrupted', estimated: true };
}

describe('usage journal', () => {
  let directory: string;
  let ids: number;
  const journals: UsageJournal[] = [];

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'usage-journal-'));
    ids = 0;
  });
  afterEach(() => {
    for (const journal of journals.splice(0)) journal.close();
    rmSync(directory, { recursive: true, force: true });
  });

  function open(sink = new MemoryUsageSink(), writeSync?: (fd: number, data: Buffer) => number) {
    const journal = new UsageJournal({
      directory,
      sink,
      fsyncIntervalMs: 50,
      eventId: () => `event-${++ids}`,
      logger: silentLogger,
      writeSync,
    });
    journals.push(journal);
    return journal;
  }

  function segmentText(): string {
    return readdirSync(directory)
      .filter((name) => name.endsWith('.jsonl'))
      .map((name) => readFileSync(join(directory, name), 'utf8'))
      .join('');
  }

  it('carries any event field through a line, bigints exactly', () => {
    const event = { ...fakeUsageEvent(1), costFemtoUsd: 123456789012345678901234n, cacheReadTokens: 7 } as UsageEvent;
    const entry = decodeJournalLine(encodeJournalLine('event', 'id-1', event).trimEnd());
    expect(entry).toEqual({ type: 'event', id: 'id-1', event });
    expect(decodeJournalLine('{"v":1,"t":"event","id":"x","b":[],"e":{"requestId":"r"')).toBeNull();
    expect(decodeJournalLine('{"v":2,"t":"cancel","id":"x"}')).toBeNull();
  });

  it('writes what JSON.stringify writes for an event, strings needing escapes included', () => {
    const event = { ...fakeUsageEvent(1), model: 'odd "model"\n\u2028é', errorCode: null, latencyMs: undefined } as unknown as UsageEvent;
    const line = encodeJournalLine('progress', 'id "2"', event);
    const { costFemtoUsd, ...rest } = event;
    expect(JSON.parse(line)).toEqual({
      v: 1,
      t: 'progress',
      id: 'id "2"',
      b: ['costFemtoUsd'],
      e: { ...JSON.parse(JSON.stringify(rest)), costFemtoUsd: String(costFemtoUsd) },
    });
  });

  it('writes the open line of a call still going at the end of its turn, none for a call that ended in it', async () => {
    const journal = open();
    const quick = journal.begin(interruptedOf(fakeUsageEvent(1)));
    const slow = journal.begin(interruptedOf(fakeUsageEvent(2)));
    const refused = journal.begin(interruptedOf(fakeUsageEvent(3)));
    refused.cancel();
    await quick.finish(fakeUsageEvent(1));
    const text = segmentText();
    expect(text).toContain(`"t":"open","id":"${slow.eventId}"`);
    expect(text).toContain(`"t":"event","id":"${quick.eventId}"`);
    expect(text).not.toContain(`"t":"open","id":"${quick.eventId}"`);
    expect(text).not.toContain(`"id":"${refused.eventId}"`);
    // The process dies here: the call still going is billed as interrupted, the ended one as it ended.
    const store = new FakeStore();
    const result = await replayJournal(directory, store, { logger: silentLogger, batchSize: 500 });
    expect(result).toMatchObject({ replayed: 2, interrupted: 1 });
    expect(new Map(store.events.map((row) => [row.eventId, row.status]))).toEqual(
      new Map([
        [quick.eventId, 200],
        [slow.eventId, 499],
      ]),
    );
  });

  it('has the event in the file when finish resolves, and replays events, interrupted calls once, not cancelled ones', async () => {
    const sink = new MemoryUsageSink();
    const journal = open(sink);
    const done = fakeUsageEvent(1, { completionTokens: 40 });
    const a = journal.begin(interruptedOf(done));
    const streaming = fakeUsageEvent(2);
    const b = journal.begin(interruptedOf(streaming));
    const c = journal.begin(interruptedOf(fakeUsageEvent(3)));
    await a.finish(done);
    expect(segmentText()).toContain(`"t":"event","id":"${a.eventId}"`);
    expect(sink.events).toEqual([done]);
    b.checkpoint({ ...interruptedOf(streaming), completionTokens: 17 });
    c.cancel();
    await new Promise((resolve) => setImmediate(resolve));
    // The process dies here: a torn line at the end, nothing closed.
    const segment = readdirSync(directory).find((name) => name.endsWith('.jsonl')) as string;
    appendFileSync(join(directory, segment), '{"v":1,"t":"event","id":"torn","b":[],"e":{"req');

    const store = new FakeStore();
    const result = await replayJournal(directory, store, { logger: silentLogger, batchSize: 500 });
    expect(result).toMatchObject({ replayed: 2, interrupted: 1, torn: 1, foreign: 0 });
    const byId = new Map(store.events.map((row) => [row.eventId, row]));
    expect(byId.get(a.eventId)).toMatchObject({ requestId: done.requestId, status: 200, completionTokens: 40 });
    expect(byId.get(b.eventId)).toMatchObject({
      requestId: streaming.requestId,
      status: 499,
      errorCode: 'interrupted',
      completionTokens: 17,
    });
    expect(byId.has(c.eventId)).toBe(false);
    expect(readdirSync(directory).filter((name) => name.endsWith('.jsonl'))).toEqual([]);
  });

  it('is idempotent when a replay dies after storing (the same journal replayed twice stores each event once)', async () => {
    const journal = open();
    const call = journal.begin(interruptedOf(fakeUsageEvent(1)));
    await call.finish(fakeUsageEvent(1));
    const copy = segmentText();
    const store = new FakeStore();
    await replayJournal(directory, store, { logger: silentLogger, batchSize: 500 });
    writeFileSync(join(directory, 'segment-000000000009.jsonl'), copy);
    await replayJournal(directory, store, { logger: silentLogger, batchSize: 500 });
    expect(store.events.map((row) => row.eventId)).toEqual([call.eventId]);
  });

  it('deletes segments once their events are stored and their calls ended', async () => {
    const journal = open();
    const first = journal.begin(interruptedOf(fakeUsageEvent(1)));
    const open2 = journal.begin(interruptedOf(fakeUsageEvent(2)));
    await first.finish(fakeUsageEvent(1));
    journal.stored([{ eventId: first.eventId }]);
    // The call still in flight keeps its segment.
    expect(segmentText()).toContain(open2.eventId);
    await open2.finish(fakeUsageEvent(2));
    journal.stored([{ eventId: open2.eventId }]);
    expect(segmentText()).not.toContain(open2.eventId);
    expect(journal.stats().pending).toBe(0);
  });

  it('refuses calls while the disk is full, rejects the waiting reply, and recovers', async () => {
    let full = true;
    const journal = open(new MemoryUsageSink(), (fd, data) => {
      if (full) throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
      return writeSync(fd, data);
    });
    const call = journal.begin(interruptedOf(fakeUsageEvent(1)));
    await expect(call.finish(fakeUsageEvent(1))).rejects.toThrow('ENOSPC');
    expect(journal.available()).toBe(false);
    expect(journal.stats().failing).toBe(true);
    full = false;
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(journal.available()).toBe(true);
    expect(segmentText()).toContain(`"t":"event","id":"${call.eventId}"`);
  });

  it('leaves a file that is not ours alone', async () => {
    writeFileSync(join(directory, 'segment-000000000001.jsonl'), 'somebody else\n');
    writeFileSync(join(directory, 'notes.txt'), 'hello');
    const result = await replayJournal(directory, new FakeStore(), { logger: silentLogger, batchSize: 500 });
    expect(result.foreign).toBe(1);
    expect(existsSync(join(directory, 'segment-000000000001.jsonl.foreign'))).toBe(true);
    expect(existsSync(join(directory, 'notes.txt'))).toBe(true);
    expect(result.nextSequence).toBe(2);
  });
});
