// Ordering across hosts for a focused crawl, without ever overriding politeness. A host's timer
// still decides when it MAY fetch; before it releases its best ready URL, the scheduler asks this
// gate whether it SHOULD now: a host whose best URL looks on the topic always may; any other host
// waits while `width` hosts offer strictly better URLs. It can only hold a host back, never bring a
// request forward. One gate per process, shared by its schedule tasks (as the page budget is);
// on Kafka each worker orders the hosts it owns.

import { focusRank } from './rank.js';

/** A score of 0.5 is a link as good as a page at the threshold (focus-scorer.ts): never held back. */
export const ALWAYS_ADMITTED_SCORE = 0.5;
/** Hosts with better URLs that make a host wait. */
export const DEFAULT_FOCUS_WIDTH = 8;

/** The gate of a crawl whose hosts wait `delayMs` between requests (more with Crawl-delay). */
export function focusGateFor(delayMs: number, width = DEFAULT_FOCUS_WIDTH): FocusGate {
  return new FocusGate(width, Math.max(1_000, 4 * delayMs), focusRank(ALWAYS_ADMITTED_SCORE, 1), Math.max(50, Math.min(1_000, delayMs)));
}

interface Offer {
  rank: number;
  at: number;
}

export class FocusGate {
  private readonly offers = new Map<string, Offer>();
  /** Hosts per offered rank, 0–255. */
  private readonly perRank = new Int32Array(256);
  private sweptAt = 0;

  /**
   * @param width how many hosts with better URLs make a host wait
   * @param staleMs an offer older than this no longer counts: its host is waiting on a long delay or a slow fetch
   * @param alwaysRank the rank from which a host is never held back
   * @param holdMs how long a host held back waits before it asks again
   */
  constructor(readonly width: number, readonly staleMs: number, readonly alwaysRank: number, readonly holdMs: number) {}

  /** A host free to fetch offers the rank of its best ready URL: may it release it now? */
  admit(host: string, rank: number, now: number): boolean {
    this.set(host, rank, now);
    if (now - this.sweptAt > this.staleMs / 4) this.sweep(now);
    if (rank >= this.alwaysRank) return true;
    let better = 0;
    for (let r = 255; r > rank; r--) {
      better += this.perRank[r];
      if (better >= this.width) return false;
    }
    return true;
  }

  /** The host has nothing ready any more. */
  forget(host: string): void {
    const old = this.offers.get(host);
    if (!old) return;
    this.perRank[old.rank]--;
    this.offers.delete(host);
  }

  get hosts(): number {
    return this.offers.size;
  }

  private set(host: string, rank: number, now: number): void {
    const r = Math.max(0, Math.min(255, Math.round(rank)));
    const old = this.offers.get(host);
    if (old) this.perRank[old.rank]--;
    this.offers.set(host, { rank: r, at: now });
    this.perRank[r]++;
  }

  private sweep(now: number): void {
    this.sweptAt = now;
    for (const [host, o] of this.offers) if (now - o.at > this.staleMs) this.forget(host);
  }
}
