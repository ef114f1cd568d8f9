import { IncomingMessage, ServerResponse, type ServerOptions } from 'node:http';

/**
 * Request and response classes for the HTTP server whose instances are born with the app's
 * prototypes (Express's `app.request` and `app.response`).
 *
 * Express gives every request and response its own prototypes on arrival, with
 * `Object.setPrototypeOf` (express/lib/middleware/init.js). Changing the prototype of a live
 * object throws away what V8 had optimised for it, in Node's HTTP code as much as in ours:
 * measured here, ~35 µs of CPU per request, more than a whole bare pass-through proxy costs.
 * On objects created with those prototypes the call changes nothing (V8 returns early when
 * the prototype is already the one given), so Express behaves exactly as before, minus the cost.
 */
export function serverClassesFor(listener: unknown): Pick<ServerOptions, 'IncomingMessage' | 'ServerResponse'> {
  const { request, response } = (listener ?? {}) as { request?: unknown; response?: unknown };
  if (!inherits(request, IncomingMessage) || !inherits(response, ServerResponse)) return {};
  // Node's two classes are plain constructor functions; if one ever becomes a `class`, it
  // cannot be called this way, and the server keeps Node's own classes.
  if (isClassSyntax(IncomingMessage) || isClassSyntax(ServerResponse)) return {};
  return { IncomingMessage: withPrototype(IncomingMessage, request), ServerResponse: withPrototype(ServerResponse, response) };
}

function inherits(candidate: unknown, base: { prototype: object }): candidate is object {
  return typeof candidate === 'object' && candidate !== null && Object.prototype.isPrototypeOf.call(base.prototype, candidate);
}

function isClassSyntax(constructor: object): boolean {
  return /^class\b/.test(Function.prototype.toString.call(constructor));
}

/** `base` as a constructor whose instances get `prototype` (which inherits from `base.prototype`). */
function withPrototype<T extends object>(base: T, prototype: object): T {
  function Constructed(this: object, ...args: unknown[]): void {
    Reflect.apply(base as unknown as (...values: unknown[]) => void, this, args);
  }
  Constructed.prototype = prototype;
  return Constructed as unknown as T;
}
