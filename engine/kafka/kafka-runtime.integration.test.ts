// The Kafka runtime on a real broker and registry (scripts/dev-services.sh up), with the counting
// topology: exactly-once through a worker killed with -9, and dead letters for undecodable records.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countingRecord, countingTopology } from '../test-driver/counting-topology.js';
import { defaultCrawlConfig } from '../../crawl/config.js';
import { partitionFor } from '../partitioning.js';
import { connectCluster, topologyCodecs, writeCrawlState, type Cluster } from './kafka-cluster.js';
import { createTopics, plannedTopics } from './topic-admin.js';
import { restoreChangelogs } from './changelog-restore.js';
import { requireServices } from '../../test/support/services.js';

const PARTITIONS = 4;
const fixture = new URL('./kafka-fixture.js', import.meta.url).pathname;

function startWorker(prefix: string): Promise<ChildProcess> {
  const { kafka, registry } = requireServices();
  const dataDir = mkdtempSync(join(tmpdir(), 'kworker-'));
  const child = spawn(process.execPath, [fixture, kafka, registry, prefix, dataDir, '400000'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d) => String(d).includes('READY') && resolve(child));
    child.on('exit', (code) => reject(new Error(`worker exited ${code}: ${err}`)));
  });
}

async function readAll(cluster: Cluster, topic: string): Promise<{ key: string; value: Buffer | null }[]> {
  const out: { key: string; value: Buffer | null }[] = [];
  const targets = Array.from({ length: PARTITIONS }, (_, p) => ({ topic, partition: p, from: 0 }));
  await restoreChangelogs(cluster.kafka, cluster.admin, targets, async (_t, entries) => {
    for (const e of entries) out.push({ key: e.key.toString('utf8'), value: e.value });
  });
  return out;
}

describe('Kafka runtime', () => {
  let cluster: Cluster;
  const prefix = `rt${Date.now()}.`;
  const workers: ChildProcess[] = [];

  before(async () => {
    const { kafka } = requireServices();
    cluster = await connectCluster({ brokers: [kafka], prefix, log: { info: () => {}, warn: () => {} } });
    await createTopics(cluster.admin, plannedTopics(countingTopology(), cluster.names, PARTITIONS));
    await writeCrawlState(cluster, { options: defaultCrawlConfig(), control: { paused: false, generation: 0, partitions: PARTITIONS } });
  });

  after(async () => {
    for (const w of workers) w.kill('SIGKILL');
    await cluster?.close();
  });

  it('should process every record exactly once when one of two workers is killed with -9', async () => {
    const total = 4000;
    const codecs = await topologyCodecs(countingTopology(), cluster.names, requireServices().registry);
    const producer = cluster.kafka.producer();
    await producer.connect();
    const messages = Array.from({ length: total }, (_, i) => {
      const { key, value } = countingRecord(i);
      return { key, value: codecs.encode('in', value), partition: partitionFor(key, PARTITIONS) };
    });
    await producer.send({ topic: cluster.names.topic('in'), messages });
    await producer.disconnect();

    const a = await startWorker(prefix);
    const b = await startWorker(prefix);
    workers.push(a, b);
    // Kill one worker while records flow: after some output is committed, well before the end.
    let progress = 0;
    while (progress < total / 10) {
      await new Promise((r) => setTimeout(r, 100));
      progress = (await cluster.admin.fetchTopicOffsets(cluster.names.topic('mid'))).reduce((n, o) => n + Number(o.high), 0);
    }
    a.kill('SIGKILL');
    assert.ok(progress < total * 0.8, `the kill came mid-way (${progress} of ${total} offsets written)`);

    let mid: { key: string }[] = [];
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline) {
      mid = await readAll(cluster, cluster.names.topic('mid'));
      if (mid.length >= total) break;
      await new Promise((r) => setTimeout(r, 1000));
    }
    await new Promise((r) => setTimeout(r, 3000));
    mid = await readAll(cluster, cluster.names.topic('mid'));
    assert.equal(mid.length, total, 'the intermediate topic holds each record exactly once (read_committed)');

    const counts = new Map<string, number>();
    for (const e of await readAll(cluster, cluster.names.changelog('copy', 'counts'))) if (e.value) counts.set(e.key, Number(JSON.parse(e.value.toString('utf8'))));
    const sum = [...counts.values()].reduce((n, v) => n + v, 0);
    assert.equal(sum, total, 'the store counted each record once, across the failover');
  });

  it('should send an undecodable record to the dead-letter topic with its reason and move on', async () => {
    const codecs = await topologyCodecs(countingTopology(), cluster.names, requireServices().registry);
    const { key, value } = countingRecord(99_999);
    const partition = partitionFor(key, PARTITIONS);
    const producer = cluster.kafka.producer();
    await producer.connect();
    await producer.send({
      topic: cluster.names.topic('in'),
      messages: [
        { key, value: Buffer.from('definitely not avro'), partition },
        { key, value: codecs.encode('in', value), partition },
      ],
    });
    await producer.disconnect();
    let letters: { key: string; value: Buffer | null }[] = [];
    let mid: { key: string; value: Buffer | null }[] = [];
    for (let i = 0; i < 60 && (letters.length === 0 || !mid.some((m) => m.value && codecs.decode<{ url: string }>('mid', m.value).url === value.url)); i++) {
      await new Promise((r) => setTimeout(r, 1000));
      letters = await readAll(cluster, cluster.names.topic('dead-letters'));
      mid = await readAll(cluster, cluster.names.topic('mid'));
    }
    assert.equal(letters.length, 1);
    const letter = codecs.decode<{ topic: string; reason: string; value: Buffer }>('dead-letters', letters[0].value!);
    assert.equal(letter.topic, 'in');
    assert.match(letter.reason, /^undecodable: unknown magic byte/);
    assert.equal(letter.value.toString(), 'definitely not avro', 'the original bytes are kept');
    assert.ok(mid.some((m) => codecs.decode<{ url: string }>('mid', m.value!).url === value.url), 'the record after it was processed');
  });
});
