/**
 * A FIFO ring buffer for the usage recorder: O(1) push and drop at the ends, batch take
 * from the head, and put-back at the head (a batch whose write failed goes back in front,
 * so order is kept). Grows by doubling; shrinks back when it empties after an outage.
 */
export class EventQueue<T> {
  private slots: Array<T | undefined>;
  private head = 0;
  private size = 0;
  private readonly initialCapacity: number;

  constructor(initialCapacity = 1024) {
    this.initialCapacity = nextPowerOfTwo(Math.max(2, initialCapacity));
    this.slots = new Array<T | undefined>(this.initialCapacity);
  }

  get length(): number {
    return this.size;
  }

  push(item: T): void {
    if (this.size === this.slots.length) this.resize(this.size + 1);
    this.slots[(this.head + this.size) & (this.slots.length - 1)] = item;
    this.size += 1;
  }

  /** Removes and returns up to `count` items from the head, oldest first. */
  take(count: number): T[] {
    const taken = Math.min(count, this.size);
    const mask = this.slots.length - 1;
    const items = new Array<T>(taken);
    for (let index = 0; index < taken; index += 1) {
      const slot = (this.head + index) & mask;
      items[index] = this.slots[slot] as T;
      this.slots[slot] = undefined;
    }
    this.head = (this.head + taken) & mask;
    this.size -= taken;
    this.shrinkIfEmpty();
    return items;
  }

  /** Discards up to `count` items from the head; returns how many were discarded. */
  dropOldest(count: number): number {
    const dropped = Math.min(count, this.size);
    const mask = this.slots.length - 1;
    for (let index = 0; index < dropped; index += 1) {
      this.slots[(this.head + index) & mask] = undefined;
    }
    this.head = (this.head + dropped) & mask;
    this.size -= dropped;
    this.shrinkIfEmpty();
    return dropped;
  }

  /** Puts items back at the head, in their order, ahead of everything queued. */
  putBack(items: readonly T[]): void {
    if (items.length === 0) return;
    if (this.size + items.length > this.slots.length) this.resize(this.size + items.length);
    const mask = this.slots.length - 1;
    this.head = (this.head - items.length) & mask;
    for (let index = 0; index < items.length; index += 1) {
      this.slots[(this.head + index) & mask] = items[index];
    }
    this.size += items.length;
  }

  clear(): void {
    this.slots = new Array<T | undefined>(this.initialCapacity);
    this.head = 0;
    this.size = 0;
  }

  private resize(minimumCapacity: number): void {
    const slots = new Array<T | undefined>(nextPowerOfTwo(minimumCapacity));
    const mask = this.slots.length - 1;
    for (let index = 0; index < this.size; index += 1) {
      slots[index] = this.slots[(this.head + index) & mask];
    }
    this.slots = slots;
    this.head = 0;
  }

  /** An outage may have grown the ring to maxBufferedEvents; give that memory back once caught up. */
  private shrinkIfEmpty(): void {
    if (this.size === 0 && this.slots.length > this.initialCapacity * 4) this.clear();
  }
}

function nextPowerOfTwo(value: number): number {
  let capacity = 2;
  while (capacity < value) capacity *= 2;
  return capacity;
}
