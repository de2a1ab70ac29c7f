// robots.txt handling for the scheduler, per RFC 9309: fetched before any other path of a host and
// through the same one-request-at-a-time slot; cached (robotsCacheMs, a day by default); 4xx means
// no restrictions; 5xx, 429 or unreachable means crawl nothing there until it can be read (retried
// with backoff, then the host is given up for a cache period); redirects followed up to 5 hops.
import type { KeyValueStore } from '../engine/stores/key-value-store.js';
import type { CrawlConfig } from '../crawl/config.js';
import type { FetchResult } from '../schemas/records.js';
import { ALLOW_ALL, DISALLOW_ALL, parseRobotsTxt, type RobotsPolicy } from '../robots/robots-policy.js';
import { decompressBody } from '../fetching/body-codec.js';
import type { HostState, RobotsText } from './host-state.js';

export type RobotsDecision =
  | { kind: 'ready' }
  | { kind: 'wait'; until: number }
  | { kind: 'fetch'; url: string }
  | { kind: 'give-up' };

/** RFC 9309 §2.5: crawlers must parse at least 500 KiB. */
export const ROBOTS_MAX_BYTES = 500 * 1024;
const MAX_ROBOTS_RETRY_MS = 10 * 60_000;
const POLICY_CACHE = 4096;

export class RobotsGate {
  private readonly policies = new Map<string, RobotsPolicy>();

  constructor(
    private readonly store: KeyValueStore<string, RobotsText>,
    private readonly config: CrawlConfig,
  ) {}

  state(h: HostState, now: number): RobotsDecision {
    if (h.robots === 'rules' || h.robots === 'allow-all') {
      return now < h.robotsExpiresAt ? { kind: 'ready' } : { kind: 'fetch', url: this.robotsUrl(h) };
    }
    if (h.robots === 'unreachable') {
      if (h.robotsGaveUpUntil > now) return { kind: 'give-up' };
      if (h.robotsGaveUpUntil > 0) {
        h.robotsGaveUpUntil = 0;
        h.robotsAttempts = 0;
      }
      if (now < h.robotsRetryAt) return { kind: 'wait', until: h.robotsRetryAt };
    }
    return { kind: 'fetch', url: this.robotsUrl(h) };
  }

  isFresh(h: HostState, now: number): boolean {
    return (h.robots === 'rules' || h.robots === 'allow-all') && now < h.robotsExpiresAt;
  }

  allows(h: HostState, url: string): boolean {
    return this.policy(h).isAllowed(url);
  }

  /** Applies a robots.txt fetch outcome to the host; returns the outcome's name for counters. */
  onFetched(h: HostState, r: FetchResult, now: number): string {
    const { status } = r;
    let bytes: Buffer | undefined;
    if (status >= 200 && status < 300) {
      try {
        bytes = decompressBody(r.body_encoding, r.body, this.config.maxBodyBytes);
      } catch {
        bytes = undefined; // our own record is damaged: as good as no answer, retry like an unreachable file
      }
    }
    if (bytes) {
      const body = new TextDecoder('utf-8').decode(bytes.subarray(0, ROBOTS_MAX_BYTES));
      // Rules apply to the host that asked, even when its robots.txt was served after a redirect.
      const url = `${h.scheme}://${h.host}/robots.txt`;
      this.store.put(h.host, { url, body, status });
      const policy = parseRobotsTxt(body, url, this.config.productToken);
      this.remember(h.host, policy);
      h.crawlDelayMs = policy.crawlDelayMs ?? 0;
      return this.settle(h, 'rules', now);
    }
    if (status >= 300 && status < 400 && r.final_url && r.final_url !== r.url && h.robotsHops < this.config.maxRedirects) {
      h.robotsUrl = r.final_url;
      h.robotsHops++;
      return 'redirect';
    }
    if ((status >= 300 && status < 500 && status !== 429)) {
      // 4xx, or a redirect chain longer than 5 hops: "unavailable", so no restrictions (RFC 9309 §2.3.1.2-3).
      this.store.delete(h.host);
      this.policies.delete(h.host);
      h.crawlDelayMs = 0;
      return this.settle(h, 'allow-all', now);
    }
    // 5xx, 429 or no response: "unreachable" (RFC 9309 §2.3.1.4).
    const backoff = Math.min(Math.max(r.retry_after_ms, h.delayMs * 2 ** (h.robotsAttempts + 1)), MAX_ROBOTS_RETRY_MS);
    if (h.robots === 'rules' || h.robots === 'allow-all') {
      // A refresh failed: keep the rules we have for a little longer rather than stop crawling.
      h.robotsExpiresAt = now + backoff;
      h.robotsUrl = '';
      h.robotsHops = 0;
      return 'refresh-failed';
    }
    h.robots = 'unreachable';
    h.robotsUrl = '';
    h.robotsHops = 0;
    h.robotsAttempts++;
    h.robotsRetryAt = now + backoff;
    if (h.robotsAttempts >= this.config.maxAttempts) {
      h.robotsGaveUpUntil = now + this.config.robotsCacheMs;
      return 'gave-up';
    }
    return 'unreachable';
  }

  private settle(h: HostState, status: 'rules' | 'allow-all', now: number): string {
    h.robots = status;
    h.delayMs = Math.max(this.config.defaultDelayMs, h.crawlDelayMs);
    h.robotsFetchedAt = now;
    h.robotsExpiresAt = now + this.config.robotsCacheMs;
    h.robotsAttempts = 0;
    h.robotsHops = 0;
    h.robotsUrl = '';
    return status;
  }

  private policy(h: HostState): RobotsPolicy {
    if (h.robots === 'allow-all') return ALLOW_ALL;
    if (h.robots !== 'rules') return DISALLOW_ALL;
    let policy = this.policies.get(h.host);
    if (policy) {
      this.policies.delete(h.host); // re-insert: Map order doubles as LRU order
    } else {
      const text = this.store.get(h.host);
      policy = text ? parseRobotsTxt(text.body, text.url, this.config.productToken) : ALLOW_ALL;
    }
    this.remember(h.host, policy);
    return policy;
  }

  private remember(host: string, policy: RobotsPolicy): void {
    this.policies.set(host, policy);
    if (this.policies.size > POLICY_CACHE) this.policies.delete(this.policies.keys().next().value!);
  }

  private robotsUrl(h: HostState): string {
    return h.robotsUrl || `${h.scheme}://${h.host}/robots.txt`;
  }
}
