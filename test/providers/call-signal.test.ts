import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { abortFollowing, CallAbort } from '../../server/providers/call-signal';

describe('CallAbort (the cancellation of a model request)', () => {
  it('calls its listeners once, in order, on the first abort; a removed one is not called', () => {
    const cancel = new CallAbort();
    const calls: string[] = [];
    const second = () => calls.push('second');
    cancel.signal.addEventListener('abort', () => calls.push('first'));
    cancel.signal.addEventListener('abort', second);
    cancel.signal.addEventListener('abort', () => calls.push('third'));
    cancel.signal.removeEventListener('abort', second);
    expect(cancel.signal.aborted).toBe(false);
    cancel.abort();
    cancel.abort();
    expect(calls).toEqual(['first', 'third']);
    expect(cancel.signal.aborted).toBe(true);
    expect(cancel.signal.reason).toMatchObject({ name: 'AbortError' });
  });

  it("stops Node's timers/promises delay, as an AbortSignal does", async () => {
    const cancel = new CallAbort();
    const waiting = delay(10_000, undefined, { signal: cancel.signal as AbortSignal }).catch((error: unknown) => error);
    cancel.abort();
    expect(await waiting).toMatchObject({ name: 'AbortError' });
    const done = new CallAbort();
    await delay(1, undefined, { signal: done.signal as AbortSignal });
    // The delay removed its listener when it ended: aborting later calls nothing of it.
    expect(() => done.abort()).not.toThrow();
  });

  it('abortFollowing: aborts with the followed signal and its reason (also when already aborted), or on its own', () => {
    const request = new CallAbort();
    const release = abortFollowing(request.signal);
    expect(release.signal.aborted).toBe(false);
    request.abort(new Error('gone'));
    expect(release.signal.aborted).toBe(true);
    expect(release.signal.reason).toEqual(new Error('gone'));
    expect(abortFollowing(request.signal).signal.reason).toEqual(new Error('gone'));
    const quiet = new CallAbort();
    const ownRelease = abortFollowing(quiet.signal);
    ownRelease.abort();
    expect(ownRelease.signal.aborted).toBe(true);
    expect(quiet.signal.aborted).toBe(false);
  });
});
