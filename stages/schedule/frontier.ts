// The frontier bookkeeping of the schedule processor: a host's ready and waiting queues (on disk,
// queue-stores.ts), the URL states they point at (url-state.ts), and the host's and the task's
// counts, kept in step. The schedule decides when a host may fetch; this decides which URL.
import type { KeyValueStore } from '../../engine/api.js';
import type { HostState } from './host-state.js';
import { compareReady, compareWaiting, StoredQueue, type ReadyKey, type UrlRef, type WaitingKey } from './queue-stores.js';
import { rankOf, type UrlKey, type UrlState } from './url-state.js';

/** Queue steps (promotions, drops, URLs taken) are bounded per visit of a host, so one host never holds the task long. */
export const MAX_QUEUE_STEPS = 512;

export interface Popped {
  key: UrlKey;
  u: UrlState | undefined;
  rank: number;
  /** The URL was fetched before: a due recrawl. */
  recrawl: boolean;
}

export class Frontier {
  /** Totals over the task's hosts, for gauges and idleness. */
  readonly totals = { ready: 0, readyRecrawls: 0, waiting: 0 };
  /** Ready pages (lane 0) and ready sitemaps (lane 1), which take turns. */
  private readonly ready: [StoredQueue<ReadyKey>, StoredQueue<ReadyKey>];
  private readonly waiting: StoredQueue<WaitingKey>;

  constructor(
    readonly urls: KeyValueStore<UrlKey, UrlState>,
    readyStore: KeyValueStore<ReadyKey, UrlRef>,
    waitingStore: KeyValueStore<WaitingKey, UrlRef>,
  ) {
    this.ready = [new StoredQueue(readyStore, compareReady, 0), new StoredQueue(readyStore, compareReady, 1)];
    this.waiting = new StoredQueue(waitingStore, compareWaiting);
  }

  /** A host's counts joined (+1) or left (-1) the task's totals. */
  account(h: HostState, sign: 1 | -1): void {
    this.totals.ready += sign * h.queue.ready;
    this.totals.readyRecrawls += sign * h.queue.readyRecrawls;
    this.totals.waiting += sign * h.queue.waiting;
  }

  /** @param keepPlace back to the place it was taken from (a URL given back unfetched), not behind its peers */
  enqueueReady(h: HostState, key: UrlKey, u: UrlState, recrawl: boolean, keepPlace = false): void {
    const rank = rankOf(u);
    const seq = keepPlace && u.queue_seq > 0 ? u.queue_seq : ++h.queue.seq;
    const lane = laneOf(u);
    this.ready[lane].push({ host: h.host, lane, rank, depth: u.depth, seq }, refOf(key));
    this.urls.put(key, { ...u, phase: 'ready', queue_seq: seq, queue_rank: rank });
    this.change(h, () => {
      h.queue.ready++;
      if (recrawl) h.queue.readyRecrawls++;
      if (lane === 1) h.sitemaps.ready++;
    });
  }

  enqueueWaiting(h: HostState, key: UrlKey, u: UrlState): void {
    const seq = ++h.queue.seq;
    this.waiting.push({ host: h.host, due: u.next_due_at, seq }, refOf(key));
    this.urls.put(key, { ...u, phase: 'waiting', queue_seq: seq, queue_rank: u.next_due_at });
    this.change(h, () => h.queue.waiting++);
  }

  /** More pages link to a URL (or, focused, a better link): a queued one moves up its host's queue. Returns whether it moved. */
  raise(h: HostState, key: UrlKey, u: UrlState, inlinks: number, score = u.score): boolean {
    const next = { ...u, inlinks, score };
    if (u.phase !== 'ready' || rankOf(next) === u.queue_rank) {
      this.urls.put(key, next);
      return false;
    }
    const recrawl = u.fetches > 0;
    const lane = laneOf(u);
    this.ready[lane].remove({ host: h.host, lane, rank: u.queue_rank, depth: u.depth, seq: u.queue_seq });
    this.change(h, () => this.leaveReady(h, recrawl, lane));
    this.enqueueReady(h, key, next, recrawl);
    return true;
  }

  /**
   * The host's next ready URL, taken off the queue: the most important page, or the first sitemap when
   * it is the sitemaps' turn (they alternate with pages while both wait, a sitemap first).
   */
  async popReady(h: HostState): Promise<Popped | undefined> {
    const sitemaps = h.sitemaps.ready;
    const pages = h.queue.ready - sitemaps;
    const first = this.nextLane(h);
    let lane = first;
    let head = await this.ready[lane].pop(h.host, lane ? sitemaps : pages);
    if (!head) {
      lane = first === 1 ? 0 : 1;
      head = await this.ready[lane].pop(h.host, lane ? sitemaps : pages);
    }
    if (!head) return undefined;
    h.sitemaps.next = lane === 0;
    const key = { host: h.host, ...head[1] };
    const u = this.urls.get(key);
    const recrawl = (u?.fetches ?? 0) > 0;
    this.change(h, () => this.leaveReady(h, recrawl, lane));
    return { key, u, rank: head[0].rank, recrawl };
  }

  /** The rank of the host's next ready URL (as popReady would take it), left in the queue. */
  async headRank(h: HostState): Promise<number | undefined> {
    const lane = this.nextLane(h);
    return (await this.ready[lane].peek(h.host, lane ? h.sitemaps.ready : h.queue.ready - h.sitemaps.ready))?.[0].rank;
  }

  /** The lane the host's next ready URL comes from: sitemaps on their turn, or when no page waits. */
  private nextLane(h: HostState): 0 | 1 {
    const sitemaps = h.sitemaps.ready;
    return sitemaps > 0 && (h.sitemaps.next || h.queue.ready - sitemaps <= 0) ? 1 : 0;
  }

  /** Recrawls whose time has come join the ready queue, with their importance. */
  async promoteDue(h: HostState, now: number): Promise<void> {
    for (let step = 0; step < MAX_QUEUE_STEPS && h.queue.waiting > 0; step++) {
      const head = await this.waiting.peek(h.host, h.queue.waiting);
      if (!head || head[0].due > now) return;
      this.waiting.remove(head[0]);
      this.change(h, () => h.queue.waiting--);
      const key = { host: h.host, ...head[1] };
      const u = this.urls.get(key);
      if (u) this.enqueueReady(h, key, u, true);
    }
  }

  /** When the host's first recrawl is due (Infinity without any). */
  async firstDue(h: HostState): Promise<number> {
    if (h.queue.waiting === 0) return Infinity;
    return (await this.waiting.peek(h.host, h.queue.waiting))?.[0].due ?? Infinity;
  }

  stop(key: UrlKey, u: UrlState): void {
    this.urls.put(key, { ...u, phase: 'stopped' });
  }

  forget(host: string): void {
    for (const lane of this.ready) lane.forget(host);
    this.waiting.forget(host);
  }

  private leaveReady(h: HostState, recrawl: boolean, lane: 0 | 1): void {
    h.queue.ready--;
    if (recrawl) h.queue.readyRecrawls--;
    if (lane === 1) h.sitemaps.ready = Math.max(0, h.sitemaps.ready - 1);
  }

  /** Applies a change to a host's counts and to the totals together. */
  private change(h: HostState, apply: () => void): void {
    this.account(h, -1);
    apply();
    this.account(h, +1);
  }
}

const refOf = (k: UrlKey): UrlRef => ({ hi: k.hi, lo: k.lo });
const laneOf = (u: UrlState): 0 | 1 => (u.sitemap_depth > 0 ? 1 : 0);
