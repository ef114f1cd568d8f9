import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BATCH_CHARS, batchLines } from '../../server/logging/line-batcher';

function recorder() {
  const writes: string[] = [];
  let syncFlushes = 0;
  const inner = {
    write: (chunk: string) => void writes.push(chunk),
    flushSync: () => void syncFlushes++,
    flush: (callback?: (error?: Error) => void) => callback?.(),
  };
  return { writes, inner, syncFlushes: () => syncFlushes };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('batchLines (log lines of one event-loop turn in one write)', () => {
  it('hands the lines of a turn on together, in order, once the turn ends', async () => {
    const { writes, inner } = recorder();
    const destination = batchLines(inner);
    destination.write('{"n":1}\n');
    destination.write('{"n":2}\n');
    destination.write('{"n":3}\n');
    expect(writes).toEqual([]);
    await nextTurn();
    expect(writes).toEqual(['{"n":1}\n{"n":2}\n{"n":3}\n']);
    destination.write('{"n":4}\n');
    await nextTurn();
    expect(writes).toEqual(['{"n":1}\n{"n":2}\n{"n":3}\n', '{"n":4}\n']);
  });

  it('hands a large batch on at once, without waiting for the turn to end', () => {
    const { writes, inner } = recorder();
    const destination = batchLines(inner);
    const line = `${'x'.repeat(999)}\n`;
    for (let index = 0; index < Math.ceil(BATCH_CHARS / line.length); index++) destination.write(line);
    expect(writes).toEqual([line.repeat(Math.ceil(BATCH_CHARS / line.length))]);
  });

  it('with holdChars, holds the lines across turns and hands them on in one piece once they reach it', async () => {
    const { writes, inner } = recorder();
    const holdChars = 3 * BATCH_CHARS;
    const destination = batchLines(inner, holdChars);
    const line = `${'x'.repeat(999)}\n`;
    const count = Math.ceil(holdChars / line.length);
    for (let index = 0; index < count - 1; index++) {
      destination.write(line);
      await nextTurn();
    }
    expect(writes).toEqual([]);
    destination.write(line);
    expect(writes).toEqual([line.repeat(count)]);
    destination.write('a\n');
    await nextTurn();
    expect(writes).toEqual([line.repeat(count)]);
    await new Promise<void>((resolve) => destination.flush?.(() => resolve()));
    expect(writes).toEqual([line.repeat(count), 'a\n']);
  });

  it('flushSync and flush hand on what is pending first', async () => {
    const { writes, inner, syncFlushes } = recorder();
    const destination = batchLines(inner);
    destination.write('a\n');
    destination.flushSync?.();
    expect(writes).toEqual(['a\n']);
    expect(syncFlushes()).toBe(1);
    destination.write('b\n');
    await new Promise<void>((resolve) => destination.flush?.(() => resolve()));
    expect(writes).toEqual(['a\n', 'b\n']);
    await nextTurn();
    expect(writes).toEqual(['a\n', 'b\n']);
  });

  it('a line logged just before process.exit still reaches the log (the real logger, in a child process)', async () => {
    const directory = mkdtempSync(path.join(tmpdir(), 'gw-log-exit-'));
    const script = path.join(directory, 'exit.ts');
    const logger = fileURLToPath(new URL('../../server/logging/logger.ts', import.meta.url));
    writeFileSync(
      script,
      `import { createLogger } from ${JSON.stringify(logger)};\n` +
        `const logger = createLogger({ level: 'info' });\n` +
        `logger.info({ step: 1 }, 'first');\nlogger.error({ step: 2 }, 'last words');\nprocess.exit(3);\n`,
    );
    const result = await promisify(execFile)(process.execPath, ['--import', 'tsx', script]).catch(
      (error: { code: number; stdout: string }) => error,
    );
    expect('code' in result ? result.code : 0).toBe(3);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { msg: string; step: number });
    expect(lines.map((line) => [line.msg, line.step])).toEqual([
      ['first', 1],
      ['last words', 2],
    ]);
  });
});
