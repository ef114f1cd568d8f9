import { tryClaimDirectory } from '../../server/usage/directory-claim';

/**
 * A separate process holding a journal directory's claim until it is killed (journal-slots.test.ts):
 * `node --import tsx test/usage/hold-claim.ts DIRECTORY [serving|adopting]`. Prints "claimed".
 */
const [directory, purpose] = process.argv.slice(2);
if (!directory) throw new Error('usage: hold-claim.ts DIRECTORY [serving|adopting]');
const attempt = tryClaimDirectory(directory, purpose === 'adopting' ? 'adopting' : 'serving');
if (!attempt.claim) {
  process.stdout.write('held\n');
  process.exit(3);
}
process.stdout.write('claimed\n');
setInterval(() => undefined, 60_000);
