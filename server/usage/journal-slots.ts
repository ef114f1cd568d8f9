import fs from 'node:fs';
import path from 'node:path';
import { describeHolder, tryClaimDirectory, type ClaimHolder, type DirectoryClaim } from './directory-claim';
import type { UsageRecorderLogger } from './recorder-options';
import { SEGMENT_PATTERN } from './usage-journal';

/**
 * Journal slots (docs/usage-durability.md, "One directory, one process"): every serving
 * process journals into `<usage.journal_dir>/worker-<n>`, a directory it has claimed
 * (directory-claim.ts). Which slot: the preferred one (1, or a cluster worker's own), else the
 * next free one, so several processes started from one checkout with default settings each
 * get their own. With `USAGE_JOURNAL_DIR` (a directory the operator gave this instance) only
 * the preferred slot will do: finding it held is a start error naming the holder.
 */

export interface JournalSlotRequest {
  /** `usage.journal_dir`, or `USAGE_JOURNAL_DIR`. */
  base: string;
  /** The slot tried first: 1, or a cluster worker's slot. */
  preferredSlot?: number;
  /** The operator fixed the directory (`USAGE_JOURNAL_DIR`): refuse rather than take another slot. */
  fixed?: boolean;
}

export interface JournalSlot {
  /** The resolved `usage.journal_dir`: where the other slots are. */
  readonly base: string;
  readonly slot: number;
  readonly directory: string;
  readonly claim: DirectoryClaim;
}

const SLOT_PATTERN = /^worker-(\d+)$/;
/** A bound on slots tried: far more processes than one disk's journals would ever serve. */
const MAX_SLOTS = 1_024;
/** How long a claim waits for a process replaying a dead holder's segments in that slot (it retries the database for a minute). */
const ADOPTER_WAIT_MS = 75_000;
const ADOPTER_POLL_MS = 100;
/** A holder that has not named itself yet (it claimed a moment ago) gets this long to. */
const HOLDER_NAME_WAIT_MS = 500;

export const slotDirectory = (base: string, slot: number): string => path.join(base, `worker-${slot}`);

/** Claims this process's slot: the preferred one, else (unless fixed) the next free one. */
export async function claimJournalSlot(request: JournalSlotRequest): Promise<JournalSlot> {
  const base = path.resolve(request.base);
  const preferred = request.preferredSlot ?? 1;
  const candidates = request.fixed ? [preferred] : [preferred, ...range(1, MAX_SLOTS).filter((slot) => slot !== preferred)];
  for (const slot of candidates) {
    const directory = slotDirectory(base, slot);
    const outcome = await claimOrHolder(directory, request.fixed === true);
    if ('claim' in outcome) return { base, slot, directory, claim: outcome.claim };
    if (request.fixed) {
      throw new Error(
        `the usage journal ${directory} is in use by ${describeHolder(outcome.holder)}: ` +
          'give every instance its own USAGE_JOURNAL_DIR, or leave it unset to take the next free slot of usage.journal_dir',
      );
    }
  }
  throw new Error(`every usage journal slot of ${base} (worker-1 to worker-${MAX_SLOTS}) is in use`);
}

/**
 * The claim of `directory`, or who holds it. With `waitForAdopter`, a process that holds it only
 * to replay a dead holder's segments is waited for: the slot is free once it is done.
 */
async function claimOrHolder(
  directory: string,
  waitForAdopter: boolean,
): Promise<{ claim: DirectoryClaim } | { holder: ClaimHolder | null }> {
  const started = Date.now();
  for (;;) {
    const attempt = tryClaimDirectory(directory, 'serving');
    if (attempt.claim) return { claim: attempt.claim };
    const waited = Date.now() - started;
    const holder = attempt.holder;
    const unnamed = holder === null && waited < HOLDER_NAME_WAIT_MS;
    const adopting = holder?.purpose === 'adopting' && waited < ADOPTER_WAIT_MS;
    if (!waitForAdopter || !(unnamed || adopting)) return { holder };
    await sleep(ADOPTER_POLL_MS);
  }
}

export interface AdoptionResult {
  /** Slots whose holder had died with segments left, replayed here. */
  adopted: number;
  /** Events (interrupted calls included) those slots held. */
  replayed: number;
}

/**
 * Replays the segments of every slot under `base` whose holder has died (its lock is free):
 * the journal of a crashed instance that never comes back is still stored. A slot held by a
 * live process is left alone; a failed replay keeps the segments for the next try.
 */
export async function adoptAbandonedSlots(
  base: string,
  replay: (directory: string) => Promise<{ replayed: number }>,
  logger: UsageRecorderLogger,
): Promise<AdoptionResult> {
  const result: AdoptionResult = { adopted: 0, replayed: 0 };
  let names: string[];
  try {
    names = fs.readdirSync(base);
  } catch {
    return result;
  }
  for (const name of names.filter((entry) => SLOT_PATTERN.test(entry)).sort()) {
    const directory = path.join(base, name);
    // Only slots with segments: a fresh slot's directory exists a moment before its claim.
    if (!hasSegments(directory)) continue;
    const attempt = tryClaimDirectory(directory, 'adopting');
    if (!attempt.claim) continue;
    try {
      // Checked again under the claim: its holder may have emptied it before it died or stopped.
      if (!hasSegments(directory)) continue;
      const replayed = await replay(directory);
      result.adopted += 1;
      result.replayed += replayed.replayed;
      logger.warn({ directory, events: replayed.replayed }, 'usage journal: a stopped instance left events in its slot; stored them');
    } catch (error) {
      logger.error({ err: error, directory }, 'usage journal: replaying a stopped instance\u2019s slot failed; kept for the next try');
    } finally {
      attempt.claim.release();
    }
  }
  return result;
}

function hasSegments(directory: string): boolean {
  try {
    return fs.readdirSync(directory).some((name) => SEGMENT_PATTERN.test(name));
  } catch {
    return false;
  }
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, index) => from + index);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
