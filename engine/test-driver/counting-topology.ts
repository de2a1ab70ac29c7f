// A two-stage topology for testing runtimes themselves (crash and failover tests): `copy` counts
// records per host in a store and forwards each to `mid`; `check` counts how often each URL arrived.
import { TopologyBuilder, defineProcessor, type Topology } from '../topology.js';
import { defineStore } from '../stores/key-value-store.js';
import { jsonValues, stringKey } from '../stores/codecs.js';
import type { CanonicalUrl, DiscoveredUrl } from '../../schemas/records.js';

export const countsStore = defineStore<string, number>({ name: 'counts', description: 'records per host', keys: stringKey, values: jsonValues<number>() });
export const seenStore = defineStore<string, number>({
  name: 'seen', description: 'times each URL arrived',
  keys: { routingKey: (k) => new URL(k).host, encode: (k) => Buffer.from(k), decode: (b) => b.toString() },
  values: jsonValues<number>(),
});

export function countingTopology(cpuPerRecord = 20_000): Topology {
  return new TopologyBuilder()
    .topic({ name: 'in', schema: 'discovered-url', retention: 'until-consumed', maxRecordBytes: 1 << 20, description: '' })
    .topic({ name: 'mid', schema: 'canonical-url', retention: 'until-consumed', maxRecordBytes: 1 << 20, description: '' })
    .topic({ name: 'dead-letters', schema: 'dead-letter', retention: { ms: 1e9 }, maxRecordBytes: 1 << 20, description: '' })
    .processor(defineProcessor({
      name: 'copy', description: '', delivery: '', stores: [countsStore],
      create: () => ({
        process(r, ctx) {
          const v = r.value as DiscoveredUrl;
          const store = ctx.store<string, number>('counts');
          store.put(r.key, (store.get(r.key) ?? 0) + 1);
          // Some CPU per record widens the window in which a kill lands mid-batch.
          let x = 0;
          for (let i = 0; i < cpuPerRecord; i++) x += i;
          const out: CanonicalUrl = { url: v.url, host: r.key, depth: x >= 0 ? 1 : 0, source_url: '', via: 'link', redirect_hops: 0, discovered_at: 0 };
          ctx.forward('mid', r.key, out);
        },
      }),
    }), { from: ['in'], to: ['mid'] })
    .processor(defineProcessor({
      name: 'check', description: '', delivery: '', stores: [seenStore],
      create: () => ({
        process(r, ctx) {
          const store = ctx.store<string, number>('seen');
          const url = (r.value as CanonicalUrl).url;
          store.put(url, (store.get(url) ?? 0) + 1);
        },
      }),
    }), { from: ['mid'], to: [] })
    .build();
}

export function countingRecord(i: number): { key: string; value: DiscoveredUrl } {
  const host = `h${i % 7}.test`;
  return { key: host, value: { url: `http://${host}/p${i}`, source_url: '', depth: 0, anchor: '', via: 'seed', redirect_hops: 0, discovered_at: i } };
}
