/**
 * Run by migrate.test.ts as a separate process: waits until the given instant (so two
 * children race for real), migrates, prints the result as JSON.
 * argv: <databaseUrl> <startAtEpochMs>
 */
import { migrate } from '../../server/db/migrate';

const [databaseUrl, startAt] = process.argv.slice(2);
if (databaseUrl === undefined || startAt === undefined) {
  throw new Error('usage: migrate-child.ts <databaseUrl> <startAtEpochMs>');
}
const delay = Number(startAt) - Date.now();
if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
const result = await migrate(databaseUrl);
process.stdout.write(JSON.stringify(result));
