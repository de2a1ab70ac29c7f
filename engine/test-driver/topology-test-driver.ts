// A broker-free driver for processor tests, in the spirit of Kafka Streams' TopologyTestDriver:
// one partition, a manual clock, a commit after every record, Avro encoding on every hop and stores
// that tests can inspect. Records forwarded to a topic that a driven processor consumes are piped
// on to it; the rest are captured for `readOutput`.
import { MemoryLevel } from 'memory-level';
import type { Logger } from '../processor.js';
import { LevelStore, type BinaryDb } from '../stores/level-store.js';
import type { KeyValueStore } from '../stores/key-value-store.js';
import { LocalSchemaRegistry } from '../avro/local-schema-registry.js';
import { loadSchema } from '../../schemas/schema-files.js';
import { TopicCodecs } from '../avro/topic-codecs.js';
import { defaultCrawlConfig, type CrawlConfig } from '../../crawl/config.js';
import { crawlTopology } from '../../crawl/topology.js';
import { bucketsOfPartition } from '../partitioning.js';
import type { ProcessorResources, Topology } from '../topology.js';
import { StreamTask, type OutputRecord } from '../task/stream-task.js';

export interface DriverOptions {
  processors: string[];
  topology?: Topology;
  config?: Partial<CrawlConfig>;
  resources?: ProcessorResources;
  startTime?: number;
  log?: Logger;
}

export interface CapturedRecord<V = unknown> {
  key: string;
  value: V;
  timestamp: number;
}

const quiet: Logger = { info: () => {}, warn: () => {} };

export class TopologyTestDriver {
  now: number;
  readonly config: CrawlConfig;
  readonly warnings: string[] = [];
  private readonly tasks: StreamTask[] = [];
  private readonly stores = new Map<string, LevelStore<unknown, unknown>>();
  private readonly captured = new Map<string, CapturedRecord[]>();
  private readonly offsets = new Map<string, number>();

  private constructor(
    private readonly db: MemoryLevel<Buffer, Buffer>,
    private readonly codecs: TopicCodecs,
    config: CrawlConfig,
    startTime: number,
  ) {
    this.config = config;
    this.now = startTime;
  }

  static async create(options: DriverOptions): Promise<TopologyTestDriver> {
    const topology = options.topology ?? crawlTopology();
    const db = new MemoryLevel<Buffer, Buffer>({ keyEncoding: 'buffer', valueEncoding: 'buffer' });
    await db.open();
    const registry = new LocalSchemaRegistry(db.sublevel<string, string>('registry', { keyEncoding: 'utf8', valueEncoding: 'utf8' }) as never);
    const codecs = new TopicCodecs(registry);
    for (const topic of topology.topics.values()) await codecs.addTopic(topic.name, loadSchema(topic.schema));
    const config = defaultCrawlConfig(options.config);
    const driver = new TopologyTestDriver(db, codecs, config, options.startTime ?? Date.UTC(2026, 0, 1));
    const log: Logger = options.log ?? { info: () => {}, warn: (m) => driver.warnings.push(m) };
    const owned = bucketsOfPartition(0, 1);
    for (const name of options.processors) {
      const node = topology.processors.find((p) => p.name === name);
      if (!node) throw new Error(`no processor named ${name}`);
      const stores = node.stores.map((spec) => new LevelStore(db as unknown as BinaryDb, spec, owned));
      for (const s of stores) driver.stores.set(s.name, s);
      driver.tasks.push(new StreamTask({
        node, partition: 0,
        processor: node.create({ config, resources: options.resources ?? {} }),
        stores, positions: new Map(), codecs, config,
        clock: () => driver.now, log: log ?? quiet, owns: () => true, onActivity: () => {},
      }));
    }
    for (const t of driver.tasks) await t.init();
    await driver.commit();
    return driver;
  }

  /** Pipes one record into every driven processor that consumes `topic`, and what follows from it. */
  async pipe(topic: string, key: string, value: unknown): Promise<void> {
    const pending: OutputRecord[] = [{ topic, key, value: this.codecs.encode(topic, value), timestamp: this.now }];
    while (pending.length) {
      const record = pending.shift()!;
      const consumers = this.tasks.filter((t) => t.node.inputs.includes(record.topic));
      if (consumers.length === 0) {
        this.capture(record);
        continue;
      }
      const offset = this.offsets.get(record.topic) ?? 0;
      this.offsets.set(record.topic, offset + 1);
      for (const task of consumers) {
        task.offer([{ ...record, partition: 0, offset }]);
        await this.settle(task);
        pending.push(...(await this.commitTask(task)));
      }
    }
  }

  /** Moves the manual clock and runs the punctuators once at the new time. */
  async advanceTime(ms: number): Promise<void> {
    this.now += ms;
    for (const task of this.tasks) {
      await task.punctuate(this.now);
      await this.settle(task);
      for (const out of await this.commitTask(task)) {
        const consumers = this.tasks.filter((t) => t.node.inputs.includes(out.topic));
        if (consumers.length) await this.pipe(out.topic, out.key, this.codecs.decode(out.topic, out.value));
        else this.capture(out);
      }
    }
  }

  readOutput<V>(topic: string): CapturedRecord<V>[] {
    const out = (this.captured.get(topic) ?? []) as CapturedRecord<V>[];
    this.captured.set(topic, []);
    return out;
  }

  store<K, V>(name: string): KeyValueStore<K, V> {
    const store = this.stores.get(name);
    if (!store) throw new Error(`no store named ${name} among the driven processors`);
    return store as unknown as KeyValueStore<K, V>;
  }

  /** Totals of a processor's counters, e.g. counter('normalize', 'rejected.too-long'). */
  counter(processor: string, name: string): number {
    return this.tasks.find((t) => t.node.name === processor)?.metrics.totals.get(name) ?? 0;
  }

  hasPendingWork(processor: string): boolean {
    return this.tasks.find((t) => t.node.name === processor)?.hasPendingWork() ?? false;
  }

  async close(): Promise<void> {
    for (const t of this.tasks) await t.close();
    await this.db.close();
  }

  private capture(record: OutputRecord): void {
    const list = this.captured.get(record.topic) ?? [];
    list.push({ key: record.key, value: this.codecs.decode(record.topic, record.value), timestamp: record.timestamp });
    this.captured.set(record.topic, list);
  }

  private async settle(task: StreamTask): Promise<void> {
    while (!task.isQuiescent()) await new Promise((r) => setImmediate(r));
  }

  private async commit(): Promise<void> {
    for (const t of this.tasks) await this.commitTask(t);
  }

  private async commitTask(task: StreamTask): Promise<OutputRecord[]> {
    const commit = task.takeCommit();
    if (!commit) return [];
    const ops = commit.stores.flatMap(({ writes }) => writes.map((w) => (w.value === null ? { type: 'del' as const, key: w.key } : { type: 'put' as const, key: w.key, value: w.value })));
    if (ops.length) await this.db.batch(ops);
    task.committed(commit);
    return commit.outputs;
  }
}
