/**
 * The key ids of one usage report's read as they are found in the database's row text
 * (docs/performance.md, "Speed tricks in the code"): each key id is made a string once, and every
 * later row of the same key finds that string by a hash of its characters in place and a compare
 * in place (`startsWith` at the row's position). A slice per row cost a new string each, which
 * the report's Map then hashed again; the string handed on here is always the same one, whose
 * hash V8 keeps, so the report's Map finds it at once.
 */
export class KeyIdTable {
  private ids: Array<string | null>;
  private hashes: Int32Array;
  private mask: number;
  private count = 0;

  constructor(capacity = 2048) {
    this.ids = new Array<string | null>(capacity).fill(null);
    this.hashes = new Int32Array(capacity);
    this.mask = capacity - 1;
  }

  /** The key id that is the text in [start, end): the same string every time it is asked for. */
  find(text: string, start: number, end: number): string {
    // FNV-1a over the UTF-16 units (all of them: ids alike in their ends must not pile up on
    // one slot).
    let hash = -2_128_831_035;
    for (let at = start; at < end; at += 1) hash = Math.imul(hash ^ text.charCodeAt(at), 16_777_619);
    const length = end - start;
    for (let slot = hash & this.mask; ; slot = (slot + 1) & this.mask) {
      const id = this.ids[slot];
      if (id === null || id === undefined) return this.add(text.slice(start, end), hash, slot);
      if (this.hashes[slot] === hash && id.length === length && sameText(id, text, start)) return id;
    }
  }

  private add(id: string, hash: number, slot: number): string {
    this.ids[slot] = id;
    this.hashes[slot] = hash;
    this.count += 1;
    // At most half full, so that a miss ends at a free slot soon.
    if (this.count * 2 > this.ids.length) this.grow();
    return id;
  }

  private grow(): void {
    const ids = this.ids;
    const hashes = this.hashes;
    this.ids = new Array<string | null>(ids.length * 2).fill(null);
    this.hashes = new Int32Array(ids.length * 2);
    this.mask = ids.length * 2 - 1;
    for (let old = 0; old < ids.length; old += 1) {
      const id = ids[old];
      if (id === null || id === undefined) continue;
      let slot = (hashes[old] as number) & this.mask;
      while (this.ids[slot] !== null) slot = (slot + 1) & this.mask;
      this.ids[slot] = id;
      this.hashes[slot] = hashes[old] as number;
    }
  }
}

/** Whether `text` holds `id` at `start`, compared unit by unit. */
function sameText(id: string, text: string, start: number): boolean {
  for (let index = 0; index < id.length; index += 1) {
    if (id.charCodeAt(index) !== text.charCodeAt(start + index)) return false;
  }
  return true;
}
