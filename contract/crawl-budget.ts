// The global page budget (--max-pages), shared by the schedule tasks of one process. Every schedule
// task adds the releases it restored from its store at init, so the budget survives restarts.

export class CrawlBudget {
  private used = 0;

  constructor(readonly limit: number) {}

  addUsed(n: number): void {
    this.used += n;
  }

  tryTake(): boolean {
    if (this.limit > 0 && this.used >= this.limit) return false;
    this.used++;
    return true;
  }

  /** A page taken and then not fetched (its lease gave it back): it may be taken again. */
  giveBack(): void {
    if (this.used > 0) this.used--;
  }

  exhausted(): boolean {
    return this.limit > 0 && this.used >= this.limit;
  }

  get pagesReleased(): number {
    return this.used;
  }
}
