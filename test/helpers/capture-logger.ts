import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';

export interface LogLine {
  msg: string;
  level: number;
  requestId?: string;
  [field: string]: unknown;
}

export interface CapturedLogger {
  logger: Logger;
  /** Everything written, as written. */
  text(): string;
  /** Every line, parsed. */
  lines(): LogLine[];
}

/** A pino logger at `level` (every level by default) writing its lines into memory. */
export function captureLogger(level: pino.LevelWithSilent = 'trace'): CapturedLogger {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      chunks.push(chunk.toString());
      callback();
    },
  });
  const text = () => chunks.join('');
  return {
    logger: pino({ level }, sink),
    text,
    lines: () =>
      text()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as LogLine),
  };
}
