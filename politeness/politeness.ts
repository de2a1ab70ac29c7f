// The one API the schedule asks about a host's politeness: when it may be asked next, what a report of
// one of its requests changes, when its leases are given up, how many URLs its next lease may hold.
// It works on the host's politeness record (its slot, robots.txt state and lease book) with the rules
// of host-politeness.ts, robots-gate.ts, backoff.ts and leases.ts; the schedule stores the record and
// never reads a delay itself.
import type { KeyValueStore } from '../engine/api.js';
import type { CrawlConfig } from '../contract/config.js';
import type { FetchResult } from '../schemas/records.js';
import type { Random } from './backoff.js';
import { freed, newSlot, nextAllowedStart, type HostSlot } from './host-politeness.js';
import { LoopEstimate, lostAt, type Lease, type LeaseBook } from './leases.js';
import { RobotsGate, type RobotsState, type RobotsText } from './robots-gate.js';

/** A host's politeness record, as the schedule keeps it in its `hosts` store. */
export interface PolitenessRecord {
  slot: HostSlot;
  robots: RobotsState;
  leases: LeaseBook;
}

export class Politeness {
  readonly robots: RobotsGate;
  private readonly loop = new LoopEstimate();

  constructor(texts: KeyValueStore<string, RobotsText>, private readonly config: CrawlConfig, private readonly random: Random = Math.random) {
    this.robots = new RobotsGate(texts, config, random);
  }

  /** The slot of a host first seen: the crawl's default delay, nothing released yet. */
  newSlot(): HostSlot {
    return newSlot(this.config.defaultDelayMs);
  }

  /** When the host's next lease may start (Infinity while one is out). */
  nextAllowedStart(h: PolitenessRecord): number {
    return nextAllowedStart(h.slot, h.leases);
  }

  /**
   * A request of the host reported: the slot's next start (from its end, the host's delay as robots.txt
   * now says, Retry-After and backoff). Returns whether the server throttled it or it failed.
   */
  freed(h: PolitenessRecord, lease: Lease, r: FetchResult, now: number): { throttled: boolean; failed: boolean } {
    this.loop.observe(lease, r, now);
    const { slot, throttled, failed } = freed(h.slot, r, now, this.robots.delayOf(h.robots), this.config.maxAttempts, this.random);
    h.slot = slot;
    return { throttled, failed };
  }

  /** When the host's leases out are given up as lost if nothing more reports. */
  lostAt(h: PolitenessRecord): number {
    return lostAt(h.leases, h.slot.delayMs, this.config.fetchTimeoutMs);
  }

  /**
   * URLs for the host's next lease: a round trip of its pacing, and never more than a quarter of its
   * page budget left, so that URLs found meanwhile (a page linked from many) can still win its last pages.
   */
  leaseSize(h: PolitenessRecord, pagesLeft: number): number {
    return Math.max(1, Math.min(this.loop.size(h.slot.delayMs), Math.ceil(pagesLeft / 4)));
  }

  /** The loop latency the lease sizes come from, for a gauge. */
  get loopMs(): number {
    return this.loop.loopMs;
  }
}
