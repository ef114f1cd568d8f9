import type { Store } from '../db/types';
import { replayJournal, type ReplayResult } from './journal-replay';
import { adoptAbandonedSlots, type JournalSlot } from './journal-slots';
import type { UsageRecorderLogger } from './recorder-options';
import type { UsageSink } from './types';
import { newUsageEventId } from './usage-event-id';
import { UsageJournal } from './usage-journal';

/** How often a serving process looks for slots whose holder died, to store what they left. */
export const ADOPT_INTERVAL_MS = 60_000;

export interface OpenJournalDependencies {
  store: Store;
  /** Where journaled events go to be stored (the recorder). */
  sink: UsageSink;
  logger: UsageRecorderLogger;
  now: () => number;
  batchSize: number;
  fsyncIntervalMs: number;
}

export interface OpenedJournal {
  journal: UsageJournal;
  slot: JournalSlot;
  /** What this slot held from its previous holder. */
  replayed: ReplayResult;
  /** Events replayed from this slot and from the slots of dead instances, since start. */
  replayedEvents(): number;
  /** Stops adopting, closes the journal (stored segments are deleted, the rest kept) and gives the slot up. */
  close(): void;
}

/**
 * The usage journal of a serving process (docs/usage-durability.md), in the slot it claimed
 * (journal-slots.ts): stores what the slot's previous holder left, adopts the slots of
 * instances that died (at start and every ADOPT_INTERVAL_MS), then opens the journal. `close`
 * gives the slot up; so does a failure here, before it is thrown.
 */
export async function openUsageJournal(slot: JournalSlot, dependencies: OpenJournalDependencies): Promise<OpenedJournal> {
  const { store, logger, batchSize } = dependencies;
  const replay = (directory: string) => replayJournal(directory, store, { logger, batchSize });
  try {
    const replayed = await replay(slot.directory);
    let adoptedEvents = (await adoptAbandonedSlots(slot.base, replay, logger)).replayed;
    const journal = new UsageJournal({
      directory: slot.directory,
      sink: dependencies.sink,
      fsyncIntervalMs: dependencies.fsyncIntervalMs,
      eventId: () => newUsageEventId(dependencies.now()),
      logger,
      now: dependencies.now,
      firstSequence: replayed.nextSequence,
    });
    let adopting = false;
    const adopter = setInterval(() => {
      if (adopting) return;
      adopting = true;
      adoptAbandonedSlots(slot.base, replay, logger)
        .then((adopted) => (adoptedEvents += adopted.replayed))
        .catch((error: unknown) => logger.error({ err: error }, 'usage journal: looking for stopped instances\u2019 slots failed'))
        .finally(() => (adopting = false));
    }, ADOPT_INTERVAL_MS);
    adopter.unref();
    return {
      journal,
      slot,
      replayed,
      replayedEvents: () => replayed.replayed + adoptedEvents,
      close() {
        clearInterval(adopter);
        journal.close();
        slot.claim.release();
      },
    };
  } catch (error) {
    slot.claim.release();
    throw error;
  }
}
