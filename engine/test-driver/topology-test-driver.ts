// A broker-free driver for processor tests, in the spirit of Kafka Streams' TopologyTestDriver:
// one partition, a manual clock, a commit after every record, Avro encoding on every hop and stores
// that tests can inspect. Records forwarded to a topic that a driven processor consumes are piped
// on to it; the rest are captured for `readOutput`.
import { MemoryLevel } from 'memory-level';
import type { Logger, StoreSpec, KeyValueStore } from '../api.js';
import { LevelStore, type BinaryDb } from '../stores/level-store.js';
import { LocalSchemaRegistry } from '../avro/local-schema-registry.js';
import { TopicCodecs } from '../avro/topic-codecs.js';
import { bucketsOfPartition } from '../partitioning.js';
import { selectProcessors, type Topology } from '../topology.js';
import { StreamTask, type OutputRecord } from '../task/stream-task.js';
import { commitStoreOps } from '../task/task-commit.js';

export interface DriverOptions<S, T> {
  topology: Topology<S, T>;
  /** The processors to drive (default: all of the topology's). */
  processors?: readonly string[];
  services: S;
  startTime?: number;
  logger?: Logger;
}

export interface CapturedRecord<V = unknown> {
  key: string;
  value: V;
  timestamp: number;
}

export class TopologyTestDriver<S, T> {
  now: number;
  readonly warnings: string[] = [];
  private readonly tasks: StreamTask<S>[] = [];
  private readonly stores = new Map<string, LevelStore<unknown, unknown>>();
  private readonly captured = new Map<string, CapturedRecord[]>();
  private readonly offsets = new Map<string, number>();
  /** Counter totals each task committed, by task: a moved task starts from them, as on the other runtimes. */
  private readonly committedCounters = new Map<string, Map<string, number>>();
  private options!: DriverOptions<S, T>;
  private logger!: Logger;

  private constructor(
    private readonly db: MemoryLevel<Buffer, Buffer>,
    private readonly codecs: TopicCodecs,
    startTime: number,
  ) {
    this.now = startTime;
  }

  static async create<S, T>(options: DriverOptions<S, T>): Promise<TopologyTestDriver<S, T>> {
    const db = new MemoryLevel<Buffer, Buffer>({ keyEncoding: 'buffer', valueEncoding: 'buffer' });
    await db.open();
    const registry = new LocalSchemaRegistry(db.sublevel<string, string>('registry', { keyEncoding: 'utf8', valueEncoding: 'utf8' }) as never);
    const codecs = new TopicCodecs(registry);
    for (const topic of options.topology.topics.values()) await codecs.addTopic(topic.name, topic.schema, topic.name, topic.maxRecordBytes);
    const driver = new TopologyTestDriver<S, T>(db, codecs, options.startTime ?? Date.UTC(2026, 0, 1));
    driver.options = options;
    driver.logger = options.logger ?? { info: () => {}, warn: (m) => driver.warnings.push(m) };
    await driver.startTasks();
    return driver;
  }

  /**
   * Every task moves to a new owner: the tasks are closed (their work committed) and new ones start
   * from what they committed (stores, counters), as a task moved between workers does.
   */
  async moveTasks(): Promise<void> {
    for (const t of this.tasks) {
      await t.close();
      await this.commitTask(t);
    }
    this.tasks.length = 0;
    this.stores.clear();
    await this.startTasks();
  }

  private async startTasks(): Promise<void> {
    const owned = bucketsOfPartition(0, 1);
    for (const node of selectProcessors(this.options.topology, this.options.processors)) {
      const stores = node.definition.stores.map((spec) => new LevelStore(this.db as unknown as BinaryDb, spec, owned));
      for (const s of stores) this.stores.set(s.name, s);
      this.tasks.push(new StreamTask({
        node, partition: 0, services: this.options.services, stores, codecs: this.codecs, logId: 'test-driver',
        clock: () => this.now, logger: this.logger, owns: () => true, onActivity: () => {},
      }));
    }
    for (const t of this.tasks) {
      t.restoring();
      await t.start(new Map(), this.committedCounters.get(t.node.name));
    }
    for (const t of this.tasks) await this.commitTask(t);
  }

  /** Pipes one record into every driven processor that consumes `topic`, and what follows from it. */
  async pipe<N extends keyof T & string>(topic: N, key: string, value: T[N]): Promise<void> {
    await this.pipeEncoded({ topic, key, value: this.codecs.encode(topic, value), timestamp: this.now });
  }

  /** Moves the manual clock and runs the punctuators once at the new time. */
  async advanceTime(ms: number): Promise<void> {
    this.now += ms;
    for (const task of this.tasks) {
      await task.punctuate(this.now);
      await this.settle(task);
      for (const out of await this.commitTask(task)) await this.pipeEncoded(out);
    }
  }

  readOutput<N extends keyof T & string>(topic: N): CapturedRecord<T[N]>[] {
    const out = this.captured.get(topic) ?? [];
    this.captured.set(topic, []);
    // Values were decoded from the topic's own schema, whose type T[N] the topology declares.
    return out as CapturedRecord<T[N]>[];
  }

  store<K, V>(spec: StoreSpec<K, V>): KeyValueStore<K, V> {
    const store: KeyValueStore<any, any> | undefined = this.stores.get(spec.name);
    if (!store) throw new Error(`no store named ${spec.name} among the driven processors`);
    return store;
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

  private async pipeEncoded(first: OutputRecord): Promise<void> {
    const pending: OutputRecord[] = [first];
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

  private capture(record: OutputRecord): void {
    const list = this.captured.get(record.topic) ?? [];
    list.push({ key: record.key, value: this.codecs.decode(record.topic, record.value), timestamp: record.timestamp });
    this.captured.set(record.topic, list);
  }

  private async settle(task: StreamTask<S>): Promise<void> {
    while (!task.isQuiescent()) await new Promise((r) => setImmediate(r));
  }

  private async commitTask(task: StreamTask<S>): Promise<OutputRecord[]> {
    const commit = task.takeCommit();
    if (!commit) return [];
    const ops = commitStoreOps(commit);
    if (ops.length) await this.db.batch(ops);
    const counters = this.committedCounters.get(task.node.name) ?? new Map<string, number>();
    for (const [name, total] of commit.counters) counters.set(name, total);
    this.committedCounters.set(task.node.name, counters);
    task.committed(commit);
    return commit.outputs;
  }
}
