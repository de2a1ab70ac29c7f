// A binary min-heap of (due time, host) for politeness timers. Entries can go stale when a host's
// time moves; the scheduler re-checks the host when an entry comes due, so stale entries are harmless.

export class TimerHeap {
  private readonly times: number[] = [];
  private readonly hosts: string[] = [];

  get size(): number {
    return this.times.length;
  }

  push(time: number, host: string): void {
    let i = this.times.length;
    this.times.push(time);
    this.hosts.push(host);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.times[parent] <= time) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  peekTime(): number {
    return this.times.length ? this.times[0] : Infinity;
  }

  pop(): string | undefined {
    if (this.times.length === 0) return undefined;
    const host = this.hosts[0];
    const lastTime = this.times.pop()!;
    const lastHost = this.hosts.pop()!;
    if (this.times.length) {
      this.times[0] = lastTime;
      this.hosts[0] = lastHost;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < this.times.length && this.times[l] < this.times[m]) m = l;
        if (r < this.times.length && this.times[r] < this.times[m]) m = r;
        if (m === i) break;
        this.swap(i, m);
        i = m;
      }
    }
    return host;
  }

  private swap(a: number, b: number): void {
    [this.times[a], this.times[b]] = [this.times[b], this.times[a]];
    [this.hosts[a], this.hosts[b]] = [this.hosts[b], this.hosts[a]];
  }
}
