// A FIFO of records a task has read and not started: taking from the front moves an index, and the
// array is compacted only once most of it is taken (Array.shift would copy the rest every time).
export class RecordQueue<T> {
  private items: T[] = [];
  private head = 0;

  get size(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  /** The oldest item; call only when `size > 0`. */
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
}
