// Ordering across hosts for a focused crawl, without ever overriding politeness. A host's timer
// still decides when it MAY fetch; before it releases its best ready URL, the scheduler asks this
// gate whether it SHOULD now. A host may when its best URL looks on the topic, or comes within
// `margin` of the best URL any host offers (while nothing stands out, every host goes: the crawl
// explores broadly), or when fewer than `width` hosts offer better (the crawl never narrows to one
// or two hosts). Any other host waits: it can only hold a host back, never bring a request forward.
// One gate per process, shared by its schedule tasks (as the page budget is); on Kafka each worker
// orders the hosts it owns.

import { focusRank } from './rank.js';

/** A score of 0.5 is a link as good as a page at the threshold (focus-scorer.ts): never held back. */
export const ALWAYS_ADMITTED_SCORE = 0.5;
/** Hosts with better URLs it takes to make a host wait. */
export const DEFAULT_FOCUS_WIDTH = 4;
/** A URL this much worse (in score) than the best one offered does not stand out from it: a rank difference of 25. */
export const SCORE_MARGIN = 0.125;

/**
 * How long, at least, a host's offer counts after it was made. A host that was let go comes back with
 * its next offer once its lease is done, which takes longer on a busy machine: with a 1 s window, the
 * offers of hosts still fetching their good URLs lapsed under load and the gate let every host go
 * (a focused crawl's harvest over its first 500 pages fell from ~0.55 to ~0.2 when it started beside
 * the Kafka crawls of the test suite). Hosts with nothing ready are forgotten at once, whatever this is.
 */
export const MIN_OFFER_LIFE_MS = 10_000;

/** The gate of a crawl whose hosts wait `delayMs` between requests (more with Crawl-delay). */
export function focusGateFor(delayMs: number, width = DEFAULT_FOCUS_WIDTH): FocusGate {
  return new FocusGate({
    width, staleMs: Math.max(MIN_OFFER_LIFE_MS, 4 * delayMs), alwaysRank: focusRank(ALWAYS_ADMITTED_SCORE, 1),
    margin: focusRank(SCORE_MARGIN, 1) - focusRank(0, 1), holdMs: Math.max(50, Math.min(1_000, delayMs)),
  });
}

export interface FocusGateOptions {
  /** How many hosts offering better URLs make a host wait. */
  width: number;
  /** An offer older than this no longer counts: its host is waiting on a long delay or a slow fetch. */
  staleMs: number;
  /** The rank from which a host is never held back. */
  alwaysRank: number;
  /** A host whose best URL ranks within this of the best offered is never held back. */
  margin: number;
  /** How long a host held back waits before it asks again. */
  holdMs: number;
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

  constructor(private readonly o: FocusGateOptions) {}

  get holdMs(): number {
    return this.o.holdMs;
  }

  /** A host free to fetch offers the rank of its best ready URL: may it release it now? */
  admit(host: string, rank: number, now: number): boolean {
    const r = this.set(host, rank, now);
    if (now - this.sweptAt > this.o.staleMs / 4) this.sweep(now);
    if (r >= this.o.alwaysRank) return true;
    let better = 0;
    for (let s = 255; s > r; s--) {
      if (this.perRank[s] === 0) continue;
      if (s - r <= this.o.margin && better === 0) return true; // the best offered is within reach
      better += this.perRank[s];
      if (better >= this.o.width) return false;
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

  private set(host: string, rank: number, now: number): number {
    const r = Math.max(0, Math.min(255, Math.round(rank)));
    const old = this.offers.get(host);
    if (old) this.perRank[old.rank]--;
    this.offers.set(host, { rank: r, at: now });
    this.perRank[r]++;
    return r;
  }

  private sweep(now: number): void {
    this.sweptAt = now;
    for (const [host, o] of this.offers) if (now - o.at > this.o.staleMs) this.forget(host);
  }
}
