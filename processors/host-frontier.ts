// The per-host queue of URLs waiting for their turn, in the schedule processor's `host-queue` store.
// Keys sort by (host, depth, arrival), so popping the smallest key gives breadth-first order per host.
// Only a few entries per active host are held in memory; the rest stay in LevelDB, which keeps memory
// bounded however large the frontier grows.
import { avroValues } from '../engine/stores/codecs.js';
import { defineStore, type KeyValueStore } from '../engine/stores/key-value-store.js';
import type { DiscoveryKind } from '../schemas/records.js';

export interface QueueKey {
  host: string;
  depth: number;
  seq: number;
}

export interface QueuedUrl {
  url: string;
  depth: number;
  attempt: number;
  via: DiscoveryKind;
  source_url: string;
  redirect_hops: number;
  discovered_at: number;
}

function encodeKey(k: QueueKey): Buffer {
  const host = Buffer.from(k.host, 'utf8');
  const b = Buffer.allocUnsafe(host.length + 1 + 2 + 6);
  host.copy(b, 0);
  b[host.length] = 0;
  b.writeUInt16BE(Math.min(k.depth, 0xffff), host.length + 1);
  b.writeUIntBE(k.seq, host.length + 3, 6);
  return b;
}

function decodeKey(b: Buffer): QueueKey {
  const n = b.length - 9;
  return { host: b.toString('utf8', 0, n), depth: b.readUInt16BE(n + 1), seq: b.readUIntBE(n + 3, 6) };
}

export const hostQueueStore = defineStore<QueueKey, QueuedUrl>({
  name: 'host-queue',
  description: 'URLs waiting per host, ordered by depth then arrival (breadth-first per host).',
  keys: { routingKey: (k) => k.host, encode: encodeKey, decode: decodeKey },
  values: avroValues<QueuedUrl>({
    type: 'record', name: 'QueuedUrl', namespace: 'crawlstream.store',
    fields: [
      { name: 'url', type: 'string' },
      { name: 'depth', type: 'int' },
      { name: 'attempt', type: 'int' },
      { name: 'via', type: 'string' },
      { name: 'source_url', type: 'string' },
      { name: 'redirect_hops', type: 'int' },
      { name: 'discovered_at', type: 'long' },
    ],
  } as never),
});

const HEAD_ENTRIES = 16;

interface Head {
  entries: [QueueKey, QueuedUrl][];
  /** True when `entries` holds every queued entry of the host. */
  complete: boolean;
}

const compare = (a: QueueKey, b: QueueKey) => a.depth - b.depth || a.seq - b.seq;

export class HostFrontier {
  private readonly heads = new Map<string, Head>();

  constructor(private readonly store: KeyValueStore<QueueKey, QueuedUrl>) {}

  push(key: QueueKey, url: QueuedUrl): void {
    this.store.put(key, url);
    const head = this.heads.get(key.host);
    if (!head) return;
    const last = head.entries[head.entries.length - 1];
    // An entry that sorts after the cached ones of an incomplete head stays in LevelDB only; it is
    // read when the head runs dry, in its proper order.
    if (!head.complete && last && compare(key, last[0]) > 0) return;
    if (!head.complete && !last) return;
    let i = head.entries.length;
    while (i > 0 && compare(head.entries[i - 1][0], key) > 0) i--;
    head.entries.splice(i, 0, [key, url]);
  }

  /** Removes and returns the host's first URL; `queued` is the host's count, to avoid a useless read. */
  async pop(host: string, queued: number): Promise<[QueueKey, QueuedUrl] | undefined> {
    if (queued <= 0) return undefined;
    let head = this.heads.get(host);
    if (!head || head.entries.length === 0) {
      const entries: [QueueKey, QueuedUrl][] = [];
      for await (const e of this.store.scan(host, Buffer.from(`${host}\u0000`, 'utf8'), HEAD_ENTRIES)) entries.push(e);
      head = { entries, complete: entries.length < HEAD_ENTRIES };
      this.heads.set(host, head);
    }
    const first = head.entries.shift();
    if (first) this.store.delete(first[0]);
    return first;
  }

  forget(host: string): void {
    this.heads.delete(host);
  }
}
