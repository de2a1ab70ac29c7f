// The names the crawl's state is kept under, on every existing data directory and Kafka cluster.
// This list must not change: a processor or store renamed in code keeps its old name with `storedAs`
// (README: stored names). Change a line here only together with a migration of existing crawls.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { crawlTopology, extraProcessors } from './topology.js';
import { storedName, topologyDescription } from '../engine/api.js';
import { storePrefix } from '../engine/stores/level-store.js';
import { plannedTopics } from '../engine/kafka/topic-admin.js';
import { KafkaNames } from '../engine/kafka/kafka-names.js';
import type { WarcOutput } from '../warc/warc-output.js';

const GOLDEN = [
  // processor (consumer group, task ids in the status and owners topics, positions and counters in a data directory, metrics label)
  'processor normalize', 'processor dedup', 'processor schedule', 'processor resolve', 'processor fetch', 'processor parse',
  'processor simhash-bands', 'processor near-dup', 'processor sink', 'processor warc',
  // store: LevelDB key prefix (data directory, a Kafka worker's local state)
  'store s!seen-set', 'store s!urls', 'store s!hosts', 'store s!robots-txt', 'store s!ready-queue', 'store s!host-waiting', 'store s!simhash-bands',
  // Kafka: consumer groups and changelog topics (default prefix and application identity)
  'kafka crawlstream.normalize', 'kafka crawlstream.normalize.positions.changelog',
  'kafka crawlstream.dedup', 'kafka crawlstream.dedup.seen-set.changelog', 'kafka crawlstream.dedup.positions.changelog',
  'kafka crawlstream.schedule', 'kafka crawlstream.schedule.urls.changelog', 'kafka crawlstream.schedule.hosts.changelog',
  'kafka crawlstream.schedule.robots-txt.changelog', 'kafka crawlstream.schedule.ready-queue.changelog',
  'kafka crawlstream.schedule.host-waiting.changelog', 'kafka crawlstream.schedule.positions.changelog',
  'kafka crawlstream.resolve', 'kafka crawlstream.resolve.positions.changelog',
  'kafka crawlstream.fetch', 'kafka crawlstream.fetch.positions.changelog',
  'kafka crawlstream.parse', 'kafka crawlstream.parse.positions.changelog',
  'kafka crawlstream.simhash-bands', 'kafka crawlstream.simhash-bands.positions.changelog',
  'kafka crawlstream.near-dup', 'kafka crawlstream.near-dup.simhash-bands.changelog', 'kafka crawlstream.near-dup.positions.changelog',
  'kafka crawlstream.sink', 'kafka crawlstream.sink.positions.changelog',
  'kafka crawlstream.warc', 'kafka crawlstream.warc.positions.changelog',
];

function storedIdentities(): string[] {
  const topology = crawlTopology(extraProcessors({} as WarcOutput));
  const names = new KafkaNames();
  const changelogs = plannedTopics(topology, names, 1).map((t) => t.name).filter((n) => n.endsWith('.changelog'));
  const out: string[] = [];
  for (const p of topology.processors) out.push(`processor ${p.storedName}`);
  for (const p of topology.processors) for (const s of p.definition.stores) out.push(`store ${storePrefix(storedName(s)).toString('latin1').replace('\u0000', '')}`);
  for (const p of topology.processors) {
    out.push(`kafka ${names.group(p.storedName)}`);
    for (const c of changelogs.filter((n) => n.startsWith(`${names.group(p.storedName)}.`))) out.push(`kafka ${c}`);
  }
  return out;
}

describe('stored identities of the crawl', () => {
  it('should keep every name its state is stored under (groups, changelogs, store prefixes, task ids)', () => {
    assert.deepEqual(storedIdentities().sort(), [...GOLDEN].sort());
  });

  it('should show where a name in the code differs from the one stored', () => {
    const d = topologyDescription(crawlTopology());
    const pinned = d.processors.filter((p) => p.storedAs).map((p) => `${p.name} → ${p.storedAs}`);
    const stores = d.processors.flatMap((p) => p.stores.filter((s) => s.storedAs).map((s) => `${s.name} → ${s.storedAs}`));
    assert.deepEqual(pinned, ['near-dup-bands → simhash-bands', 'clickhouse-sink → sink']);
    assert.deepEqual(stores, ['bands → simhash-bands']);
  });
});
