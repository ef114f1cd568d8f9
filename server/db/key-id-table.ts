/**
 * The key ids of one usage report's read as they are found in the database's row text
 * (docs/performance.md, "Speed tricks in the code"): each key id is made a string once and given
 * its number in the read (KeyDayVisitor), and every later row of the same key finds that number
 * by a hash of its bytes in place and a compare in place: no string per row, and no Map
 * hashing one.
 */
export class KeyIdTable {
  /** Each key id by its number. */
  readonly ids: string[] = [];
  /** The same as UTF-8 bytes. */
  private readonly idBytes: Buffer[] = [];
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

  /** The number of the key id whose UTF-8 bytes are `bytes` [start, end) (a new one for a new id). */
  find(bytes: Buffer, start: number, end: number): number {
    // FNV-1a over the bytes (all of them: ids alike in their ends must not pile up on one slot).
    let hash = -2_128_831_035;
    for (let at = start; at < end; at += 1) hash = Math.imul(hash ^ (bytes[at] as number), 16_777_619);
    for (let slot = hash & this.mask; ; slot = (slot + 1) & this.mask) {
      const number = this.numbers[slot] as number;
      if (number < 0) return this.add(bytes, start, end, hash, slot);
      if (this.hashes[slot] === hash && sameBytes(this.idBytes[number] as Buffer, bytes, start, end)) return number;
    }
  }

  private add(bytes: Buffer, start: number, end: number, hash: number, slot: number): number {
    const number = this.ids.length;
    this.ids.push(bytes.toString('utf8', start, end));
    // A copy: a view would keep the whole text's bytes.
    this.idBytes.push(Buffer.from(bytes.subarray(start, end)));
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

/** Whether `bytes` [start, end) are `id`'s, compared byte by byte. */
function sameBytes(id: Buffer, bytes: Buffer, start: number, end: number): boolean {
  if (id.length !== end - start) return false;
  for (let index = 0; index < id.length; index += 1) {
    if (id[index] !== bytes[start + index]) return false;
  }
  return true;
}
