// robots.txt for the scheduler, per RFC 9309: fetched before any other path of a host and through the
// same one-request-at-a-time slot; cached (robotsCacheMs, a day by default); 4xx means no
// restrictions; 5xx, 429, no answer or a body that did not arrive whole means "unreachable": crawl
// nothing there until it can be read (retried with backoff, then the host is given up for a cache
// period); redirects followed up to 5 hops. A Crawl-delay above --max-crawl-delay skips the host.
//
// The gate decides and never mutates: `decide` reads a host's robots state, `afterFetch` returns the
// next state (and the text to keep), and the schedule processor stores them.
import type { KeyValueStore } from '../engine/api.js';
import type { CrawlConfig } from '../contract/config.js';
import type { FetchResult } from '../schemas/records.js';
import { ALLOW_ALL, DISALLOW_ALL, parseRobotsTxt, type RobotsPolicy } from '../robots/robots-policy.js';
import { decompressBody } from '../fetching/body-codec.js';
import { backoffMs, type Random } from './backoff.js';

export type RobotsStatus = 'unknown' | 'rules' | 'allow-all' | 'unreachable' | 'crawl-delay';

export interface RobotsState {
  status: RobotsStatus;
  /** Where robots.txt is fetched from next ('' for /robots.txt of the host; a redirect target otherwise). */
  url: string;
  hops: number;
  attempts: number;
  fetchedAt: number;
  expiresAt: number;
  retryAt: number;
  /** Set when robots.txt stayed unreachable after every attempt: the host's URLs are dropped until then. */
  gaveUpUntil: number;
  crawlDelayMs: number;
}

export interface RobotsText {
  url: string;
  body: string;
  status: number;
}

export type RobotsDecision =
  | { kind: 'ready' }
  | { kind: 'fetch'; url: string; attempt: number; hops: number }
  | { kind: 'wait'; until: number }
  /** Crawl nothing on the host until `until`: robots.txt unreachable, or a Crawl-delay over the bound. */
  | { kind: 'refuse'; reason: 'robots-unreachable' | 'crawl-delay-too-long'; until: number };

export interface RobotsOutcome {
  state: RobotsState;
  /** For counters and the robots table: rules, allow-all, unreachable, incomplete, redirect, … */
  outcome: string;
  /** The text to keep (undefined: leave as is; null: forget it). */
  text: RobotsText | null | undefined;
  /** Sitemaps the file names (absolute URLs), when it was read now. */
  sitemaps: string[];
}

/** RFC 9309 §2.5: crawlers must parse at least 500 KiB. */
export const ROBOTS_MAX_BYTES = 500 * 1024;
const POLICY_CACHE = 4096;
/**
 * Crawl-delays are kept up to this (about 24.8 days, an Avro int): any larger number, 1e308 included,
 * reads as this much. Far over --max-crawl-delay, so such a host is skipped; its robots.txt is read
 * again no sooner than that, as it asked.
 */
export const MAX_CRAWL_DELAY_KEPT_MS = 2 ** 31 - 1;

export function newRobotsState(): RobotsState {
  return { status: 'unknown', url: '', hops: 0, attempts: 0, fetchedAt: 0, expiresAt: 0, retryAt: 0, gaveUpUntil: 0, crawlDelayMs: 0 };
}

export class RobotsGate {
  private readonly policies = new Map<string, RobotsPolicy>();

  constructor(
    private readonly texts: KeyValueStore<string, RobotsText>,
    private readonly config: CrawlConfig,
    private readonly random: Random = Math.random,
  ) {}

  decide(host: string, scheme: string, s: RobotsState, now: number): RobotsDecision {
    const url = s.url || `${scheme}://${host}/robots.txt`;
    if (s.status === 'rules' || s.status === 'allow-all') return now < s.expiresAt ? { kind: 'ready' } : { kind: 'fetch', url, attempt: 1, hops: s.hops };
    if (s.status === 'crawl-delay') {
      return now < s.expiresAt ? { kind: 'refuse', reason: 'crawl-delay-too-long', until: s.expiresAt } : { kind: 'fetch', url, attempt: 1, hops: s.hops };
    }
    if (s.status === 'unreachable') {
      if (s.gaveUpUntil > now) return { kind: 'refuse', reason: 'robots-unreachable', until: s.gaveUpUntil };
      // A give-up period that ran out starts a fresh round of attempts.
      if (s.gaveUpUntil > 0) return { kind: 'fetch', url, attempt: 1, hops: s.hops };
      if (now < s.retryAt) return { kind: 'wait', until: s.retryAt };
    }
    return { kind: 'fetch', url, attempt: s.attempts + 1, hops: s.hops };
  }

  /** Rules in force and not expired: URLs can be judged at admission already. */
  isFresh(s: RobotsState, now: number): boolean {
    return (s.status === 'rules' || s.status === 'allow-all') && now < s.expiresAt;
  }

  allows(host: string, s: RobotsState, url: string): boolean {
    return this.policy(host, s).isAllowed(url);
  }

  /** The host's effective delay under these rules. */
  delayOf(s: RobotsState): number {
    return Math.max(this.config.defaultDelayMs, s.crawlDelayMs);
  }

  /** Why a host is refused, in words for a `skipped` row ('' when the reason says it all). */
  refusalDetail(s: RobotsState, reason: string): string {
    if (reason !== 'crawl-delay-too-long') return '';
    const asked = s.crawlDelayMs >= MAX_CRAWL_DELAY_KEPT_MS ? `at least ${MAX_CRAWL_DELAY_KEPT_MS}` : `${s.crawlDelayMs}`;
    return `Crawl-delay ${asked} ms > ${this.config.maxCrawlDelayMs} ms`;
  }

  afterFetch(host: string, scheme: string, s: RobotsState, r: FetchResult, now: number): RobotsOutcome {
    const { status } = r;
    const keep = (state: RobotsState, outcome: string, text?: RobotsText | null, sitemaps: string[] = []) => ({ state, outcome, text, sitemaps });
    if (status >= 200 && status < 300) {
      // A body cut short by the server (a reset, the total timeout) is a robots.txt we did not read:
      // its missing tail may disallow what the part we have allows. Our own size cap is fine (§2.5).
      if (r.error && !r.truncated) return this.unreachable(s, r, now, 'incomplete');
      let bytes: Buffer;
      try {
        bytes = decompressBody(r.body_encoding, r.body, this.config.maxBodyBytes);
      } catch {
        return this.unreachable(s, r, now, 'unreadable'); // our own record is damaged: retry as if unreachable
      }
      const body = new TextDecoder('utf-8').decode(bytes.subarray(0, ROBOTS_MAX_BYTES));
      // Rules apply to the host that asked, even when its robots.txt was served after a redirect.
      const url = `${scheme}://${host}/robots.txt`;
      const policy = parseRobotsTxt(body, url, this.config.productToken);
      this.remember(host, policy);
      const asked = policy.crawlDelayMs ?? 0;
      const crawlDelayMs = Number.isNaN(asked) ? 0 : Math.min(Math.max(0, asked), MAX_CRAWL_DELAY_KEPT_MS);
      const settled = this.settled(s, now, crawlDelayMs);
      if (crawlDelayMs > this.config.maxCrawlDelayMs) return keep({ ...settled, status: 'crawl-delay' }, 'crawl-delay-too-long', { url, body, status }, []);
      return keep({ ...settled, status: 'rules' }, 'rules', { url, body, status }, policy.sitemaps);
    }
    if (status >= 300 && status < 400 && r.final_url && r.final_url !== r.url && s.hops < this.config.maxRedirects) {
      return keep({ ...s, url: r.final_url, hops: s.hops + 1 }, 'redirect');
    }
    if (status >= 300 && status < 500 && status !== 429) {
      // 4xx, or a redirect chain longer than 5 hops: "unavailable", so no restrictions (§2.3.1.2-3).
      this.policies.delete(host);
      return keep({ ...this.settled(s, now, 0), status: 'allow-all' }, 'allow-all', null);
    }
    return this.unreachable(s, r, now, 'unreachable');
  }

  /** 5xx, 429, no response or an incomplete body: "unreachable" (§2.3.1.4). */
  private unreachable(s: RobotsState, r: FetchResult, now: number, outcome: string): RobotsOutcome {
    const backoff = backoffMs(s.attempts + 1, this.delayOf(s), r.retry_after_ms, this.config.maxAttempts, this.random);
    if (s.status === 'rules' || s.status === 'allow-all') {
      // A refresh failed: keep the rules we have a little longer rather than stop crawling.
      return { state: { ...s, expiresAt: now + backoff, url: '', hops: 0 }, outcome: 'refresh-failed', text: undefined, sitemaps: [] };
    }
    const attempts = s.gaveUpUntil > 0 && now >= s.gaveUpUntil ? 1 : s.attempts + 1;
    const gaveUp = attempts >= this.config.maxAttempts;
    const state: RobotsState = {
      ...s, status: 'unreachable', url: '', hops: 0, attempts, retryAt: now + backoff,
      gaveUpUntil: gaveUp ? now + this.config.robotsCacheMs : 0,
    };
    return { state, outcome: gaveUp ? 'gave-up' : outcome, text: undefined, sitemaps: [] };
  }

  private settled(s: RobotsState, now: number, crawlDelayMs: number): RobotsState {
    return {
      ...s, crawlDelayMs, fetchedAt: now, expiresAt: now + this.config.robotsCacheMs, attempts: 0, hops: 0, url: '',
      retryAt: 0, gaveUpUntil: 0,
    };
  }

  /** Drops the host's parsed rules: its stored robots.txt may have changed under them (a failed record undone). */
  forget(host: string): void {
    this.policies.delete(host);
  }

  private policy(host: string, s: RobotsState): RobotsPolicy {
    if (s.status === 'allow-all') return ALLOW_ALL;
    if (s.status !== 'rules') return DISALLOW_ALL;
    let policy = this.policies.get(host);
    if (policy) {
      this.policies.delete(host); // re-insert: Map order doubles as LRU order
    } else {
      const text = this.texts.get(host);
      policy = text ? parseRobotsTxt(text.body, text.url, this.config.productToken) : ALLOW_ALL;
    }
    this.remember(host, policy);
    return policy;
  }

  private remember(host: string, policy: RobotsPolicy): void {
    this.policies.set(host, policy);
    if (this.policies.size > POLICY_CACHE) this.policies.delete(this.policies.keys().next().value!);
  }
}

