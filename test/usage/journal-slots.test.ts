import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tryClaimDirectory, type DirectoryClaim } from '../../server/usage/directory-claim';
import { encodeJournalLine, JOURNAL_HEADER } from '../../server/usage/journal-line';
import { replayJournal } from '../../server/usage/journal-replay';
import { adoptAbandonedSlots, claimJournalSlot } from '../../server/usage/journal-slots';
import { FakeStore } from '../helpers/fake-store';
import { fakeUsageEvent } from '../helpers/fake-usage-event';
import { REPOSITORY } from '../helpers/serve-process';

const silentLogger = { warn: () => {}, error: () => {}, info: () => {} };

/** Another process holding `directory`'s claim (test/usage/hold-claim.ts), once it says so. */
async function holdInAnotherProcess(directory: string, purpose: 'serving' | 'adopting' = 'serving'): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', 'test/usage/hold-claim.ts', directory, purpose], {
    cwd: REPOSITORY,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const said = await new Promise<string>((resolve) => child.stdout?.once('data', (data: Buffer) => resolve(data.toString().trim())));
  expect(said).toBe('claimed');
  return child;
}

async function kill(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}

/** A segment as a killed process leaves it: one stored-worthy event line. */
function writeSegment(directory: string, requestId: string): void {
  mkdirSync(directory, { recursive: true });
  writeFileSync(
    join(directory, 'segment-000000000001.jsonl'),
    JOURNAL_HEADER + encodeJournalLine('event', `event-${requestId}`, fakeUsageEvent(1, { requestId })),
  );
}

describe('journal slots: one directory, one live process', () => {
  let base: string;
  const children: ChildProcess[] = [];
  const claims: DirectoryClaim[] = [];

  beforeEach(() => {
    base = mkdtempSync(join(tmpdir(), 'journal-slots-'));
  });
  afterEach(async () => {
    for (const claim of claims.splice(0)) claim.release();
    await Promise.all(children.splice(0).map((child) => kill(child)));
    rmSync(base, { recursive: true, force: true });
  });

  it('a claim held by another process is refused, naming it; the holder killed with SIGKILL frees it', async () => {
    const directory = join(base, 'worker-1');
    const holder = await holdInAnotherProcess(directory);
    children.push(holder);

    const refused = tryClaimDirectory(directory, 'serving');
    // A holder that died meanwhile frees the claim: say so rather than report a lock that did not hold.
    expect({ exitCode: holder.exitCode, signalCode: holder.signalCode }).toEqual({ exitCode: null, signalCode: null });
    expect(refused.claim).toBeUndefined();
    expect(refused.holder).toMatchObject({ pid: holder.pid, purpose: 'serving' });

    await kill(holder);
    const attempt = tryClaimDirectory(directory, 'serving');
    expect(attempt.claim).toBeDefined();
    claims.push(attempt.claim as DirectoryClaim);
  });

  it('a second claim in the same process is refused (two gateways in one process) until the first is released', () => {
    const directory = join(base, 'worker-1');
    const first = tryClaimDirectory(directory, 'serving');
    expect(first.claim).toBeDefined();
    expect(tryClaimDirectory(directory, 'serving').holder).toMatchObject({ pid: process.pid });
    first.claim?.release();
    const again = tryClaimDirectory(directory, 'serving');
    expect(again.claim).toBeDefined();
    claims.push(again.claim as DirectoryClaim);
  });

  it('default settings: a process finding worker-1 claimed takes worker-2, then worker-3', async () => {
    children.push(await holdInAnotherProcess(join(base, 'worker-1')));
    const second = await claimJournalSlot({ base });
    claims.push(second.claim);
    const third = await claimJournalSlot({ base });
    claims.push(third.claim);
    expect([second.slot, third.slot]).toEqual([2, 3]);
    expect(second.directory).toBe(join(base, 'worker-2'));
  });

  it('a cluster worker prefers its own slot, and takes it back from nobody once its holder is gone', async () => {
    const holder = await holdInAnotherProcess(join(base, 'worker-2'));
    children.push(holder);
    const elsewhere = await claimJournalSlot({ base, preferredSlot: 2 });
    claims.push(elsewhere.claim);
    expect(elsewhere.slot).toBe(1);
    await kill(holder);
    const own = await claimJournalSlot({ base, preferredSlot: 2 });
    claims.push(own.claim);
    expect(own.slot).toBe(2);
  });

  it('a directory the operator fixed (USAGE_JOURNAL_DIR) is never traded: held, the start fails naming the holder', async () => {
    const holder = await holdInAnotherProcess(join(base, 'worker-1'));
    children.push(holder);
    await expect(claimJournalSlot({ base, fixed: true })).rejects.toThrow(
      new RegExp(`usage journal .*worker-1 is in use by process ${holder.pid} on .* \\(serving since .*USAGE_JOURNAL_DIR`),
    );
    expect(readdirSync(base)).toEqual(['worker-1']);
  });

  it('a fixed slot held only to replay a dead holder\u2019s segments is waited for, then claimed', async () => {
    const adopter = await holdInAnotherProcess(join(base, 'worker-1'), 'adopting');
    children.push(adopter);
    const killed = new Promise<void>((resolve) => setTimeout(() => void kill(adopter, 'SIGTERM').then(resolve), 400));
    const slot = await claimJournalSlot({ base, fixed: true });
    claims.push(slot.claim);
    expect(slot.slot).toBe(1);
    // The claim was waited for until the adopter died (its exit may be reported a moment after the lock is free).
    await killed;
    expect(adopter.signalCode).toBe('SIGTERM');
  });

  it('adoption: a dead instance\u2019s slot is replayed and emptied; a live one\u2019s is left exactly as it is', async () => {
    writeSegment(join(base, 'worker-1'), 'of-the-dead');
    writeSegment(join(base, 'worker-2'), 'of-the-living');
    children.push(await holdInAnotherProcess(join(base, 'worker-2')));
    const store = new FakeStore();
    const result = await adoptAbandonedSlots(
      base,
      (directory) => replayJournal(directory, store, { logger: silentLogger, batchSize: 10 }),
      silentLogger,
    );

    expect(result).toEqual({ adopted: 1, replayed: 1 });
    expect(store.events.map((row) => row.requestId)).toEqual(['of-the-dead']);
    expect(existsSync(join(base, 'worker-1', 'segment-000000000001.jsonl'))).toBe(false);
    expect(existsSync(join(base, 'worker-2', 'segment-000000000001.jsonl'))).toBe(true);
    // The adopter gave the dead one's slot back: a new instance can take it.
    const next = await claimJournalSlot({ base });
    claims.push(next.claim);
    expect(next.slot).toBe(1);
  });

  it('adoption: a replay the database refuses keeps the segments for the next try', async () => {
    writeSegment(join(base, 'worker-3'), 'kept');
    const result = await adoptAbandonedSlots(base, () => Promise.reject(new Error('database down')), silentLogger);
    expect(result).toEqual({ adopted: 0, replayed: 0 });
    expect(existsSync(join(base, 'worker-3', 'segment-000000000001.jsonl'))).toBe(true);
    // And the slot was given back.
    const after = tryClaimDirectory(join(base, 'worker-3'), 'serving');
    expect(after.claim).toBeDefined();
    after.claim?.release();
  });
});
