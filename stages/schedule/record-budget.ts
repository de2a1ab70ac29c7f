// The global page budget as one schedule task sees it: what the record in progress took from it and
// gave back is remembered, so that a record that fails (its leases undone by the engine) returns its
// pages to the budget instead of spending them on nothing.
import type { CrawlBudget } from '../../contract/crawl-budget.js';

export class RecordBudget {
  /** Pages taken minus pages given back by the record in progress. */
  private net = 0;

  constructor(private readonly shared: CrawlBudget) {}

  /** A new record begins: what earlier ones took is committed with them. */
  begin(): void {
    this.net = 0;
  }

  /** The record failed and its leases were undone: its pages go back, what it gave back is taken again. */
  undo(): void {
    for (; this.net > 0; this.net--) this.shared.giveBack();
    if (this.net < 0) this.shared.addUsed(-this.net);
    this.net = 0;
  }

  addUsed(n: number): void {
    this.shared.addUsed(n);
  }

  tryTake(): boolean {
    const took = this.shared.tryTake();
    if (took) this.net++;
    return took;
  }

  giveBack(): void {
    this.shared.giveBack();
    this.net--;
  }

  exhausted(): boolean {
    return this.shared.exhausted();
  }
}
