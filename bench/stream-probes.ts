import { Agent, request as httpRequest } from 'node:http';
import { performance } from 'node:perf_hooks';

/**
 * Probes of streamed replies that a load generator cannot make: when the first event
 * arrives, whether events arrive as the upstream sends them, and many streams open at once.
 */
export interface StreamTarget {
  url: string;
  body: string;
  authorization?: string;
}

interface StreamOutcome {
  status: number;
  /** ms from sending the request to the response headers, to the first body bytes, to the end. */
  headersMs: number;
  firstByteMs: number;
  endMs: number;
  complete: boolean;
}

function streamOnce(target: StreamTarget, agent: Agent, onOpen?: () => void, onClose?: () => void): Promise<StreamOutcome> {
  return new Promise((resolve) => {
    const started = performance.now();
    let headersMs = Number.NaN;
    let firstByteMs = Number.NaN;
    let tail = '';
    let opened = false;
    const finish = (status: number) => {
      if (opened) onClose?.();
      opened = false;
      resolve({ status, headersMs, firstByteMs, endMs: performance.now() - started, complete: tail.endsWith('data: [DONE]\n\n') });
    };
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(target.body)),
    };
    if (target.authorization) headers.authorization = target.authorization;
    const outbound = httpRequest(target.url, { method: 'POST', headers, agent }, (response) => {
      headersMs = performance.now() - started;
      opened = true;
      onOpen?.();
      response.setEncoding('utf8');
      response.on('data', (text: string) => {
        if (Number.isNaN(firstByteMs)) firstByteMs = performance.now() - started;
        tail = (tail + text).slice(-64);
      });
      response.on('end', () => finish(response.statusCode ?? 0));
      response.on('error', () => finish(0));
    });
    outbound.on('error', () => finish(0));
    outbound.end(target.body);
  });
}

/** Sequential streams on one keep-alive connection: time to the first body bytes, in ms. */
export async function timeToFirstByte(target: StreamTarget, count: number): Promise<{ firstByteMs: number[]; failures: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const firstByteMs: number[] = [];
  let failures = 0;
  try {
    for (let index = 0; index < count; index++) {
      const outcome = await streamOnce(target, agent);
      if (outcome.status !== 200 || !outcome.complete) failures++;
      else firstByteMs.push(outcome.firstByteMs);
    }
  } finally {
    agent.destroy();
  }
  return { firstByteMs, failures };
}

/** One stream from a slow upstream: the first and the last bytes, in ms. */
export async function streamSpread(target: StreamTarget): Promise<{ firstByteMs: number; endMs: number; ok: boolean }> {
  const agent = new Agent({ keepAlive: false });
  try {
    const outcome = await streamOnce(target, agent);
    return { firstByteMs: outcome.firstByteMs, endMs: outcome.endMs, ok: outcome.status === 200 && outcome.complete };
  } finally {
    agent.destroy();
  }
}

/** `count` streams started at once; `maxOpen` is how many had their headers and were not done at the same time. */
export async function openStreams(target: StreamTarget, count: number): Promise<{ maxOpen: number; failures: number; seconds: number }> {
  const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  let open = 0;
  let maxOpen = 0;
  const started = performance.now();
  try {
    const outcomes = await Promise.all(
      Array.from({ length: count }, () =>
        streamOnce(
          target,
          agent,
          () => {
            open++;
            maxOpen = Math.max(maxOpen, open);
          },
          () => {
            open--;
          },
        ),
      ),
    );
    const failures = outcomes.filter((outcome) => outcome.status !== 200 || !outcome.complete).length;
    return { maxOpen, failures, seconds: (performance.now() - started) / 1000 };
  } finally {
    agent.destroy();
  }
}
