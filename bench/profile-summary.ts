import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Sums the self time of a V8 `.cpuprofile` (written by `npm run bench -- --cpu-prof DIR`) by
 * function and by file, to compare two builds' profiles (docs/performance.md, "Where a
 * request's CPU goes"). Usage: `npx tsx bench/profile-summary.ts FILE_OR_DIR [TOP]`; a
 * directory means its newest profile. Times are per cent of the sampled time.
 */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function newestProfile(target: string): string {
  if (!statSync(target).isDirectory()) return target;
  const files = readdirSync(target)
    .filter((name) => name.endsWith('.cpuprofile'))
    .map((name) => path.join(target, name))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  if (files.length === 0) throw new Error(`no .cpuprofile in ${target}`);
  return files[0] as string;
}

function shortUrl(url: string): string {
  const index = url.lastIndexOf('/node_modules/');
  if (index >= 0) return url.slice(index + '/node_modules/'.length);
  return url.length > 0 ? path.basename(url) : '(native)';
}

function top(totals: Map<string, number>, all: number, count: number): string[] {
  return [...totals.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, micros]) => `${((100 * micros) / all).toFixed(2).padStart(6)}%  ${name}`);
}

const [target, topArgument] = process.argv.slice(2);
if (!target) throw new Error('usage: bench/profile-summary.ts FILE_OR_DIR [TOP]');
const file = newestProfile(target);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const byFunction = new Map<string, number>();
const byFile = new Map<string, number>();
let all = 0;
profile.samples.forEach((id, index) => {
  const node = byId.get(id);
  const micros = profile.timeDeltas[index] ?? 0;
  if (!node) return;
  const { functionName, url, lineNumber } = node.callFrame;
  const where = shortUrl(url);
  const name = `${functionName || '(anonymous)'} ${where}:${lineNumber + 1}`;
  byFunction.set(name, (byFunction.get(name) ?? 0) + micros);
  byFile.set(where, (byFile.get(where) ?? 0) + micros);
  all += micros;
});
const count = Number(topArgument ?? 40);
console.log(`${file}: ${(all / 1e6).toFixed(2)} s sampled`);
console.log('\nby function (self time)');
console.log(top(byFunction, all, count).join('\n'));
console.log('\nby file (self time)');
console.log(top(byFile, all, Math.min(count, 25)).join('\n'));
