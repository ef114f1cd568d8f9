import { tryClaimDirectory } from '../../server/usage/directory-claim';

/**
 * A separate process holding a journal directory's claim until it is killed (journal-slots.test.ts):
 * `node --expose-gc --import tsx test/usage/hold-claim.ts DIRECTORY [serving|adopting]`. Prints "claimed".
 * It keeps no reference to the claim and collects garbage before saying so: a claim must hold
 * whether or not its caller keeps the object.
 */
function claim(directory: string, purpose: string): boolean {
  return tryClaimDirectory(directory, purpose === 'adopting' ? 'adopting' : 'serving').claim !== undefined;
}

const [directory, purpose = 'serving'] = process.argv.slice(2);
if (!directory) throw new Error('usage: hold-claim.ts DIRECTORY [serving|adopting]');
if (!claim(directory, purpose)) {
  process.stdout.write('held\n');
  process.exit(3);
}
globalThis.gc?.();
process.stdout.write('claimed\n');
setInterval(() => undefined, 60_000);
