// The frontier's queues in the schedule processor's stores, on disk, a StoredQueue each: `ready`
// holds URLs that may be fetched now, most important first, in two lanes (pages, and sitemaps, which
// take turns with pages so that an index of 50,000 children cannot starve a host's pages); `waiting`
// holds URLs due again later (recrawls), earliest first. Each entry names a URL by fingerprint; its
// details live in the `urls` store. Only a few entries per active host are held in memory, so a host
// with a million queued URLs costs disk, not RAM.
import { defineStore, type KeyValueStore } from '../../engine/api.js';

/** A URL's place in the ready queue: its lane, then higher rank first, then lower depth, then arrival. */
export interface ReadyKey {
  host: string;
  /** 0: pages (and sitemaps queued before lanes existed); 1: sitemaps. */
  lane: 0 | 1;
  rank: number;
  depth: number;
  seq: number;
}

/** A URL's place in the waiting queue: earliest due first, then arrival. */
export interface WaitingKey {
  host: string;
  due: number;
  seq: number;
}

export interface UrlRef {
  hi: number;
  lo: number;
}

const refValues = {
  encode: (r: UrlRef) => {
    const b = Buffer.allocUnsafe(8);
    b.writeUInt32BE(r.hi, 0);
    b.writeUInt32BE(r.lo, 4);
    return b;
  },
  decode: (b: Buffer): UrlRef => ({ hi: b.readUInt32BE(0), lo: b.readUInt32BE(4) }),
};

/** Host names hold neither byte, so a lane's prefix never matches another host's keys. */
const hostPrefix = (host: string, lane: 0 | 1 = 0) => Buffer.from(`${host}${lane ? '\u0001' : '\u0000'}`, 'utf8');

export const readyQueueStore = defineStore<ReadyKey, UrlRef>({
  name: 'ready-queue',
  description: 'URLs a host may fetch now, by importance (rank), then depth, then arrival.',
  keys: {
    routingKey: (k) => k.host,
    encode: (k) => {
      const host = hostPrefix(k.host, k.lane);
      const b = Buffer.allocUnsafe(host.length + 1 + 2 + 6);
      host.copy(b, 0);
      b[host.length] = 255 - Math.max(0, Math.min(255, k.rank)); // higher rank sorts first
      b.writeUInt16BE(Math.min(k.depth, 0xffff), host.length + 1);
      b.writeUIntBE(k.seq, host.length + 3, 6);
      return b;
    },
    decode: (b) => {
      const n = b.length - 10;
      return { host: b.toString('utf8', 0, n), lane: b[n] === 1 ? 1 : 0, rank: 255 - b[n + 1], depth: b.readUInt16BE(n + 2), seq: b.readUIntBE(n + 4, 6) };
    },
  },
  values: refValues,
});

export const waitingQueueStore = defineStore<WaitingKey, UrlRef>({
  name: 'host-waiting',
  description: 'URLs due again later (recrawls), by due time.',
  keys: {
    routingKey: (k) => k.host,
    encode: (k) => {
      const host = hostPrefix(k.host);
      const b = Buffer.allocUnsafe(host.length + 6 + 6);
      host.copy(b, 0);
      b.writeUIntBE(Math.max(0, Math.min(k.due, 2 ** 48 - 1)), host.length, 6);
      b.writeUIntBE(k.seq, host.length + 6, 6);
      return b;
    },
    decode: (b) => {
      const n = b.length - 13;
      return { host: b.toString('utf8', 0, n), due: b.readUIntBE(n + 1, 6), seq: b.readUIntBE(n + 7, 6) };
    },
  },
  values: refValues,
});

const HEAD_ENTRIES = 16;

interface Head<K> {
  entries: [K, UrlRef][];
  /** True when `entries` holds every entry of the host. */
  complete: boolean;
}

/** One store holding an ordered queue per host, with a small cached head per host. */
export class StoredQueue<K extends { host: string }> {
  private readonly heads = new Map<string, Head<K>>();

  constructor(
    private readonly store: KeyValueStore<K, UrlRef>,
    private readonly compare: (a: K, b: K) => number,
    private readonly lane: 0 | 1 = 0,
  ) {}

  push(key: K, ref: UrlRef): void {
    this.store.put(key, ref);
    const head = this.heads.get(key.host);
    if (!head) return;
    const last = head.entries[head.entries.length - 1];
    // An entry that sorts after the cached ones of an incomplete head stays on disk only; it is read
    // when the head runs dry, in its proper order.
    if (!head.complete && (!last || this.compare(key, last[0]) > 0)) return;
    let i = head.entries.length;
    while (i > 0 && this.compare(head.entries[i - 1][0], key) > 0) i--;
    head.entries.splice(i, 0, [key, ref]);
  }

  remove(key: K): void {
    this.store.delete(key);
    const head = this.heads.get(key.host);
    if (!head) return;
    const i = head.entries.findIndex(([k]) => this.compare(k, key) === 0);
    if (i >= 0) head.entries.splice(i, 1);
  }

  /** The host's first entry, without removing it; `count` is the host's entry count, to avoid a useless read. */
  async peek(host: string, count: number): Promise<[K, UrlRef] | undefined> {
    if (count <= 0) return undefined;
    let head = this.heads.get(host);
    if (!head || head.entries.length === 0) {
      const entries: [K, UrlRef][] = [];
      for await (const e of this.store.scan(host, hostPrefix(host, this.lane), HEAD_ENTRIES)) entries.push(e);
      head = { entries, complete: entries.length < HEAD_ENTRIES };
      this.heads.set(host, head);
    }
    return head.entries[0];
  }

  async pop(host: string, count: number): Promise<[K, UrlRef] | undefined> {
    const first = await this.peek(host, count);
    if (first) this.remove(first[0]);
    return first;
  }

  forget(host: string): void {
    this.heads.delete(host);
  }
}

export const compareReady = (a: ReadyKey, b: ReadyKey) => b.rank - a.rank || a.depth - b.depth || a.seq - b.seq;
export const compareWaiting = (a: WaitingKey, b: WaitingKey) => a.due - b.due || a.seq - b.seq;
