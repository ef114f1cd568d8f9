/**
 * The key ids of one usage report's read as they are found in the database's row text
 * (docs/performance.md, "Speed tricks in the code"): each key id is made a string once and given
 * its number in the read (KeyDayVisitor), and every later row of the same key finds that number
 * by a hash of its characters in place and a compare in place: no string per row, and no Map
 * hashing one.
 */
export class KeyIdTable {
  /** Each key id by its number. */
  readonly ids: string[] = [];
  /** Per slot: the number of the key id in it, or -1. */
  private numbers: Int32Array;
  private hashes: Int32Array;
  private mask: number;

  /** `capacity`: slots at first, a power of two (the table doubles when half full). */
  constructor(capacity = 2048) {
    this.numbers = new Int32Array(capacity).fill(-1);
    this.hashes = new Int32Array(capacity);
    this.mask = capacity - 1;
  }

  /** The number of the key id that is the text in [start, end) (a new one for a new id). */
  find(text: string, start: number, end: number): number {
    // FNV-1a over the UTF-16 units (all of them: ids alike in their ends must not pile up on
    // one slot).
    let hash = -2_128_831_035;
    for (let at = start; at < end; at += 1) hash = Math.imul(hash ^ text.charCodeAt(at), 16_777_619);
    const length = end - start;
    for (let slot = hash & this.mask; ; slot = (slot + 1) & this.mask) {
      const number = this.numbers[slot] as number;
      if (number < 0) return this.add(text.slice(start, end), hash, slot);
      if (this.hashes[slot] === hash) {
        const id = this.ids[number] as string;
        if (id.length === length && sameText(id, text, start)) return number;
      }
    }
  }

  private add(id: string, hash: number, slot: number): number {
    const number = this.ids.length;
    this.ids.push(id);
    this.numbers[slot] = number;
    this.hashes[slot] = hash;
    // At most half full, so that a miss ends at a free slot soon.
    if (this.ids.length * 2 > this.numbers.length) this.grow();
    return number;
  }

  private grow(): void {
    const numbers = this.numbers;
    const hashes = this.hashes;
    this.numbers = new Int32Array(numbers.length * 2).fill(-1);
    this.hashes = new Int32Array(numbers.length * 2);
    this.mask = numbers.length * 2 - 1;
    for (let old = 0; old < numbers.length; old += 1) {
      const number = numbers[old] as number;
      if (number < 0) continue;
      let slot = (hashes[old] as number) & this.mask;
      while ((this.numbers[slot] as number) >= 0) slot = (slot + 1) & this.mask;
      this.numbers[slot] = number;
      this.hashes[slot] = hashes[old] as number;
    }
  }
}

/** KeyDayVisitor's key numbers for key ids given as strings (SQLite's rows, the admin report's). */
export class KeyNumbers {
  private readonly numbers = new Map<string, number>();

  numberOf(keyId: string): number {
    let number = this.numbers.get(keyId);
    if (number === undefined) {
      number = this.numbers.size;
      this.numbers.set(keyId, number);
    }
    return number;
  }
}

/** Whether `text` holds `id` at `start`, compared unit by unit. */
function sameText(id: string, text: string, start: number): boolean {
  for (let index = 0; index < id.length; index += 1) {
    if (id.charCodeAt(index) !== text.charCodeAt(start + index)) return false;
  }
  return true;
}
