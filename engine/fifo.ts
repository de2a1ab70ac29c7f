// A first-in, first-out list that drops from the front by moving an index: the array is compacted
// only once most of it is dropped (Array.shift would copy the rest every time). A task's queue of
// records read and not started, and a partition log's in-memory tail of recent records, are both one.
export class Fifo<T> {
  private items: T[] = [];
  private head = 0;

  get size(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  /** The oldest item, if any. */
  peek(): T | undefined {
    return this.head < this.items.length ? this.items[this.head] : undefined;
  }

  /** Removes and returns the oldest item; call only when `size > 0`. */
  take(): T {
    const item = this.items[this.head++];
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    } else if (this.head > 4096 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  /** Items `from` to `to` (exclusive), counted from the oldest. */
  slice(from: number, to: number): T[] {
    return this.items.slice(this.head + from, Math.min(this.items.length, this.head + to));
  }
}
