// test-plan: e2e uses=kafka,registry
// The Kafka runtime on a real broker and registry (scripts/dev-services.sh up), with the word count:
// exactly-once through a worker killed with -9, and dead letters for undecodable records.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { corpusLine, wordCountTopology, type Count } from '../examples/word-count.js';
import { partitionFor } from '../partitioning.js';
import { connectCluster, renewLogId, topologyCodecs, writeClusterState, type Cluster } from './kafka-cluster.js';
import { createTopics, plannedTopics } from './topic-admin.js';
import { restoreChangelogs } from './changelog-restore.js';
import { requireServices } from '../../test/support/services.js';

const PARTITIONS = 4;
const fixture = new URL('./testing/kafka-fixture.js', import.meta.url).pathname;

function startWorker(prefix: string): Promise<ChildProcess> {
  const { kafka, registry } = requireServices();
  const dataDir = mkdtempSync(join(tmpdir(), 'kworker-'));
  const child = spawn(process.execPath, [fixture, kafka, registry, prefix, dataDir, '500000'], { stdio: ['ignore', 'pipe', 'pipe'] });
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
    cluster = await connectCluster({ brokers: [kafka], prefix, logger: { info: () => {}, warn: () => {} } });
    await createTopics(cluster.admin, plannedTopics(wordCountTopology(), cluster.names, PARTITIONS));
    await renewLogId(cluster);
    await writeClusterState(cluster, { options: {}, control: { paused: false, generation: 0, partitions: PARTITIONS } });
  });

  after(async () => {
    for (const w of workers) w.kill('SIGKILL');
    await cluster?.close();
  });

  it('should count every word exactly once when one of two workers is killed with -9', async () => {
    const total = 1000;
    const words = total * 4;
    const codecs = await topologyCodecs(wordCountTopology(), cluster.names, requireServices().registry);
    const producer = cluster.kafka.producer();
    await producer.connect();
    const messages = Array.from({ length: total }, (_, i) => {
      const line = corpusLine(i);
      return { key: line.doc, value: codecs.encode('lines', line), partition: partitionFor(line.doc, PARTITIONS) };
    });
    // A quarter first: one transaction carries many records, so with every line there at once the
    // first commit could hold most of the counts and the kill would come at the end, not mid-way.
    const first = total / 4;
    await producer.send({ topic: cluster.names.topic('lines'), messages: messages.slice(0, first) });

    const a = await startWorker(prefix);
    const b = await startWorker(prefix);
    workers.push(a, b);
    // Kill one worker while records flow: once the first counts are committed, well before the end
    // (one transaction per worker carries many records: waiting for a tenth of them overshot).
    let progress = 0;
    while (progress === 0) {
      await new Promise((r) => setTimeout(r, 10));
      progress = (await cluster.admin.fetchTopicOffsets(cluster.names.topic('counts'))).reduce((n, o) => n + Number(o.high), 0);
    }
    a.kill('SIGKILL');
    await producer.send({ topic: cluster.names.topic('lines'), messages: messages.slice(first) });
    await producer.disconnect();
    assert.ok(progress < words * 0.8, `the kill came mid-way (${progress} of ${words} offsets written)`);

    // Done when every word's count reached its expected total (read_committed: aborted writes never show).
    const expected = new Map<string, number>();
    for (let i = 0; i < total; i++) for (const w of corpusLine(i).text.split(' ')) expected.set(w, (expected.get(w) ?? 0) + 1);
    let records: { key: string; value: Buffer | null }[] = [];
    const latest = new Map<string, number>();
    const deadline = Date.now() + 180_000;
    while (Date.now() < deadline) {
      records = await readAll(cluster, cluster.names.topic('counts'));
      for (const r of records) latest.set(r.key, codecs.decode<Count>('counts', r.value!).count);
      if ([...expected].every(([w, n]) => (latest.get(w) ?? 0) >= n)) break;
      await new Promise((r) => setTimeout(r, 1000));
    }
    assert.deepEqual(new Map([...latest].sort()), new Map([...expected].sort()), 'each word counted once per occurrence');
    assert.equal(records.length, words, 'one count record per occurrence: none lost, none twice');
  });

  it('should send an undecodable record to the dead-letter topic with its reason and move on', async () => {
    const codecs = await topologyCodecs(wordCountTopology(), cluster.names, requireServices().registry);
    const line = { doc: 'doc-after-bad', text: 'afterthebadrecord' };
    const partition = partitionFor(line.doc, PARTITIONS);
    const producer = cluster.kafka.producer();
    await producer.connect();
    await producer.send({
      topic: cluster.names.topic('lines'),
      messages: [
        { key: line.doc, value: Buffer.from('definitely not avro'), partition },
        { key: line.doc, value: codecs.encode('lines', line), partition },
      ],
    });
    await producer.disconnect();
    let letters: { key: string; value: Buffer | null }[] = [];
    let counted = false;
    for (let i = 0; i < 60 && (letters.length === 0 || !counted); i++) {
      await new Promise((r) => setTimeout(r, 1000));
      letters = await readAll(cluster, cluster.names.topic('dead-letters'));
      counted = (await readAll(cluster, cluster.names.topic('counts'))).some((r) => r.key === 'afterthebadrecord');
    }
    assert.equal(letters.length, 1);
    const letter = codecs.decode<{ topic: string; reason: string; value: Buffer }>('dead-letters', letters[0].value!);
    assert.equal(letter.topic, 'lines');
    assert.match(letter.reason, /^undecodable: unknown magic byte/);
    assert.equal(letter.value.toString(), 'definitely not avro', 'the original bytes are kept');
    assert.ok(counted, 'the record after it was processed');
  });
});
