// A bounded "seen recently" set in two generations: when the young generation fills, it becomes the
// old one and the previous old one is dropped. O(1) per operation, memory bounded to 2 × capacity.

export class RecentSet {
  private young = new Set<string>();
  private old = new Set<string>();

  constructor(private readonly capacity: number) {}

  /** Adds the value; false when it was already there. */
  addIfAbsent(value: string): boolean {
    if (this.young.has(value) || this.old.has(value)) return false;
    if (this.young.size >= this.capacity) {
      this.old = this.young;
      this.young = new Set();
    }
    this.young.add(value);
    return true;
  }
}
