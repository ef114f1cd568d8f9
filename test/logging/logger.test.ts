import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { createLogger, writeInfoLine } from '../../server/logging/logger';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      callback();
    },
  });
  return { lines, logger: createLogger({ level: 'info', destination }) };
}

describe('createLogger redaction (a second line of defence: nothing should log secrets)', () => {
  it('censors secret keys at the top level and one level down, and leaves everything else alone', () => {
    const { lines, logger } = capture();
    const request = { method: 'POST', headers: { authorization: 'Bearer sk-secret' } };
    logger.info(
      {
        authorization: 'Bearer sk-1',
        apiKey: 'sk-2',
        key: 'sk-3',
        request,
        provider: { apiKey: 'sk-4', name: 'openai' },
        count: 3,
        nested: { deeper: { key: 'kept' } },
      },
      'message',
    );
    expect(lines[0]).toMatchObject({
      msg: 'message',
      authorization: '[redacted]',
      apiKey: '[redacted]',
      key: '[redacted]',
      request: { method: 'POST', headers: '[redacted]' },
      provider: { apiKey: '[redacted]', name: 'openai' },
      count: 3,
      // Like pino's `*.key` paths: two levels down is not searched.
      nested: { deeper: { key: 'kept' } },
    });
    // The logged objects themselves are not changed.
    expect(request.headers.authorization).toBe('Bearer sk-secret');
  });

  it('censors the own properties of a logged error, and secret keys of child bindings', () => {
    const { lines, logger } = capture();
    const error = Object.assign(new Error('upstream said no'), { headers: { 'set-cookie': 'x' }, status: 401 });
    logger.child({ key: 'sk-5', worker: 2 }).error({ err: error }, 'failed');
    expect(lines[0]).toMatchObject({
      key: '[redacted]',
      worker: 2,
      err: { type: 'Error', message: 'upstream said no', headers: '[redacted]', status: 401 },
    });
    expect(typeof (lines[0]?.err as { stack?: unknown }).stack).toBe('string');
  });
});

describe('writeInfoLine (the access log line, built without pino)', () => {
  function rawCapture(level = 'info') {
    const text: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        text.push(chunk.toString('utf8'));
        callback();
      },
    });
    return { text, logger: createLogger({ level, destination }) };
  }
  const fields = {
    requestId: 'req-1',
    method: 'POST',
    path: '/v1/chat/"quoted"\\path\u2028\n',
    status: 200,
    latencyMs: 1.25,
    overheadMs: undefined,
    keyId: 'key_1',
    stream: true,
    aborted: undefined,
    promptTokens: 0,
    nan: Number.NaN,
    ip: '::1',
  };

  it('writes the line pino writes for the same fields, byte for byte but the time', () => {
    const direct = rawCapture();
    writeInfoLine(direct.logger, fields, 'request');
    const viaPino = rawCapture();
    viaPino.logger.info(fields, 'request');
    const withoutTime = (line: string | undefined) => line?.replace(/"time":\d+/, '"time":0');
    expect(direct.text).toHaveLength(1);
    expect(withoutTime(direct.text[0])).toBe(withoutTime(viaPino.text[0]));
    expect(JSON.parse(direct.text[0] ?? '')).toMatchObject({ level: 30, path: fields.path, stream: true, msg: 'request' });
  });

  it('writes nothing below the info level, and goes through pino for loggers made elsewhere', () => {
    const quiet = rawCapture('warn');
    writeInfoLine(quiet.logger, fields, 'request');
    expect(quiet.text).toEqual([]);
    const lines: string[] = [];
    const foreign = pino(
      { level: 'info', base: { pid: 1 } },
      new Writable({ write: (chunk: Buffer, _encoding, callback) => (lines.push(chunk.toString()), callback()) }),
    );
    writeInfoLine(foreign, { requestId: 'req-2' }, 'request');
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ pid: 1, requestId: 'req-2', msg: 'request' });
  });
});
