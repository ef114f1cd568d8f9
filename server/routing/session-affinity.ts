import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/**
 * Session affinity (docs/routing.md, "Session affinity"): the requests of one agent session go
 * to the deployment that holds its prompt cache. The session is read from what the agents send;
 * the binding (key, model, session) → deployment lives in memory, bounded, with a TTL refreshed
 * on use, and is told to the other instances (Redis) when it is written.
 */

/** Longest session id kept: longer ones are hashed to this. */
const MAX_SESSION_CHARS = 200;

function headerText(headers: IncomingHttpHeaders | null, name: string): string | null {
  const value = headers?.[name];
  const text = Array.isArray(value) ? value[0] : value;
  return typeof text === 'string' && text.length > 0 ? text : null;
}

function record(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/**
 * The session of Claude Code's `metadata.user_id`: `user_<hash>_account_<uuid>_session_<uuid>`,
 * or a JSON object with `session_id`; null when it names no session.
 */
function sessionOfUserId(userId: unknown): string | null {
  if (typeof userId !== 'string' || userId.length === 0) return null;
  const marker = userId.lastIndexOf('_session_');
  if (marker >= 0) return userId.slice(marker + '_session_'.length) || null;
  if (userId.startsWith('{')) {
    try {
      const parsed = record(JSON.parse(userId));
      return typeof parsed?.session_id === 'string' && parsed.session_id.length > 0 ? parsed.session_id : null;
    } catch {
      return null;
    }
  }
  return null;
}

/**
 * The session a request belongs to: Claude Code's `x-claude-code-session-id` header or the
 * session in `metadata.user_id`; Codex's `session_id` / `session-id` header or the body's
 * `prompt_cache_key`; a generic `x-session-id`. Null: the request names none.
 */
export function sessionOf(headers: IncomingHttpHeaders | null, body: unknown): string | null {
  const fromHeader =
    headerText(headers, 'x-claude-code-session-id') ??
    headerText(headers, 'session_id') ??
    headerText(headers, 'session-id') ??
    headerText(headers, 'x-session-id');
  const fields = record(body);
  const session =
    fromHeader ??
    sessionOfUserId(record(fields?.metadata)?.user_id) ??
    (typeof fields?.prompt_cache_key === 'string' && fields.prompt_cache_key.length > 0 ? fields.prompt_cache_key : null);
  if (session === null) return null;
  return session.length <= MAX_SESSION_CHARS ? session : createHash('sha256').update(session).digest('hex');
}

/**
 * The prompt's stable prefix, for `affinity: prefix`: the system prompt, the tools and the first
 * message, in whichever format the route speaks (chat, Messages, Responses).
 */
export function stablePrefix(body: unknown): string | null {
  const fields = record(body);
  if (!fields) return null;
  const first = (list: unknown): unknown => (Array.isArray(list) ? list[0] : list);
  const chatMessages = Array.isArray(fields.messages) ? (fields.messages as unknown[]) : null;
  // In chat, the system prompt is the leading system messages.
  const leadingSystem = chatMessages?.filter((message) => record(message)?.role === 'system' || record(message)?.role === 'developer');
  const firstTurn = chatMessages?.find((message) => record(message)?.role !== 'system' && record(message)?.role !== 'developer');
  const parts = [
    fields.system ?? fields.instructions ?? leadingSystem ?? null,
    fields.tools ?? null,
    firstTurn ?? first(fields.input) ?? null,
  ];
  if (parts.every((part) => part === null || part === undefined)) return null;
  return JSON.stringify(parts);
}

/** 64 bits of a SHA-256, as a number in [0, 1). */
function unitHash(text: string): number {
  const digest = createHash('sha256').update(text).digest();
  return (digest.readUInt32BE(0) * 2 ** 21 + (digest.readUInt32BE(4) >>> 11)) / 2 ** 53;
}

/**
 * Weighted rendezvous hashing (highest random weight): every instance picks the same candidate
 * for the same prefix, without shared state, and a candidate that leaves moves only its share.
 */
export function rendezvousPick<C extends { id: string; weight: number }>(seed: string, candidates: readonly C[]): C | undefined {
  let best: C | undefined;
  let bestScore = -Infinity;
  const seedHash = createHash('sha256').update(seed).digest('hex');
  for (const candidate of candidates) {
    const unit = Math.max(unitHash(`${seedHash}\u0000${candidate.id}`), Number.MIN_VALUE);
    const score = -candidate.weight / Math.log(unit);
    if (score > bestScore) {
      bestScore = score;
      best = candidate;
    }
  }
  return best;
}

/** Told of this instance's bindings so that the other instances hold them too (Redis). */
export interface AffinityBroadcast {
  bound(scope: string, deploymentId: string, ttlMs: number): void;
}

interface Binding {
  deploymentId: string;
  expiresAt: number;
}

/** Bindings held in memory, the least recently used dropped first beyond this. */
export const MAX_BINDINGS = 100_000;

/** The bindings of sessions to deployments, scoped to (key, model, session). */
export class SessionBindings {
  private readonly bindings = new Map<string, Binding>();
  broadcast: AffinityBroadcast | null = null;

  constructor(
    private readonly now: () => number,
    private readonly maxBindings = MAX_BINDINGS,
  ) {}

  static scope(keyId: string, modelId: string, session: string): string {
    return `${keyId}\u0000${modelId}\u0000${session}`;
  }

  /** The session's deployment, when bound and not expired. */
  get(scope: string): string | null {
    const binding = this.bindings.get(scope);
    if (!binding) return null;
    if (binding.expiresAt <= this.now()) {
      this.bindings.delete(scope);
      return null;
    }
    return binding.deploymentId;
  }

  /** The session answered on `deploymentId`: bound there, its TTL refreshed; told to other instances when it moved. */
  bind(scope: string, deploymentId: string, ttlMs: number): void {
    const previous = this.bindings.get(scope);
    this.store(scope, deploymentId, this.now() + ttlMs);
    if (previous?.deploymentId !== deploymentId) this.broadcast?.bound(scope, deploymentId, ttlMs);
  }

  /** Another instance's binding. */
  apply(scope: string, deploymentId: string, ttlMs: number): void {
    this.store(scope, deploymentId, this.now() + ttlMs);
  }

  get size(): number {
    return this.bindings.size;
  }

  private store(scope: string, deploymentId: string, expiresAt: number): void {
    // Deleted first, so that the Map's insertion order is the order of last use.
    this.bindings.delete(scope);
    this.bindings.set(scope, { deploymentId, expiresAt });
    if (this.bindings.size > this.maxBindings) {
      const oldest = this.bindings.keys().next();
      if (!oldest.done) this.bindings.delete(oldest.value);
    }
  }
}
