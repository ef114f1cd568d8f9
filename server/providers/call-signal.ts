/**
 * What the upstream calls of a model request need of an abort signal: a structural part of
 * AbortSignal, which satisfies it (tests and callers may pass one). undici's `request` and
 * `dispatch`, and Node's timers/promises, take anything of this shape.
 */
export interface CallSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/**
 * The cancellation of one model request (the client went away, a stream was cut): a
 * CallSignal and its `abort`. Not an AbortController, made for every request: Node builds an
 * AbortSignal as an EventTarget and then changes its prototype, and adds and removes
 * EventTarget listeners with a cost of their own; together more CPU per request than the
 * whole retry loop. Listeners are called once, on the first `abort`, in the order added.
 */
export class CallAbort implements CallSignal {
  aborted = false;
  reason: unknown = undefined;
  private listeners: (() => void)[] | null = null;

  /** The signal side, for the upstream calls. */
  get signal(): CallSignal {
    return this;
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    if (this.aborted) return;
    (this.listeners ??= []).push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const index = this.listeners?.indexOf(listener) ?? -1;
    if (index !== -1) this.listeners?.splice(index, 1);
  }

  abort(reason: unknown = new DOMException('This operation was aborted', 'AbortError')): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.listeners;
    this.listeners = null;
    if (listeners) for (const listener of listeners) listener();
  }
}

/**
 * A CallAbort that also aborts, with the same reason, when `signal` does: a stream's own
 * release (its consumer left early) joined to the request's cancellation, without
 * AbortSignal.any's EventTarget and weak-reference bookkeeping per stream.
 */
export function abortFollowing(signal: CallSignal): CallAbort {
  const joined = new CallAbort();
  if (signal.aborted) joined.abort(signal.reason);
  else signal.addEventListener('abort', () => joined.abort(signal.reason), { once: true });
  return joined;
}

/** Throws an AbortError, whatever reason the signal carries (as fetch and undici reject), once it is aborted. */
export function throwIfAborted(signal: CallSignal): void {
  if (signal.aborted) throw new DOMException('This operation was aborted', 'AbortError');
}
