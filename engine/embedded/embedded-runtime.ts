// The embedded runtime: every processor of the topology in one process, over a durable partitioned
// log, with LevelDB stores. All tasks commit through one group commit: the outputs are appended to
// the log, then ONE LevelDB batch records the store writes, the input positions and the new log
// ends. A kill -9 at any point leaves either the whole commit or none of it (DESIGN §3.3).
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Logger } from '../api.js';
import { LevelStore } from '../stores/level-store.js';
import { LocalSchemaRegistry } from '../avro/local-schema-registry.js';
import { TopicCodecs } from '../avro/topic-codecs.js';
import { bucketsOfPartition, partitionFor } from '../partitioning.js';
import type { Topology } from '../topology.js';
import { StreamTask, type CommitReport, type OutputRecord, type RawRecord, type TaskCommit } from '../task/stream-task.js';
import type { TaskLag } from '../task/task-metrics.js';
import { PartitionLog, type AppendRecord, type LogEnd } from './partition-log.js';
import {
  counterKey, encodeJson, logEndKey, metaKey, openStateDb, positionKey, readCounters, readJson, readLogEnd, readPosition,
  type StateDb,
} from './state-db.js';

export interface EmbeddedOptions<S> {
  dataDir: string;
  topology: Topology<S>;
  /** Partition count for a new data directory; an existing one keeps its own (see `crawlstream scale`). */
  partitions?: number;
  /** Processors to run (default all). */
  processors?: readonly string[];
  /** What the topology's processors are created from (clients, pools, configuration). */
  services: S;
  log: Logger;
  clock?: () => number;
  /** Consumer identity of a processor; replays use their own so a live crawl is not disturbed. */
  groupOf?: (processor: string) => string;
  /** Least time between two group commits; trades a little latency for larger batches. */
  commitIntervalMs?: number;
  /**
   * Which records of its partition a task processes. Default: those whose key it owns now.
   * Replays pass their own rule: a record is processed where it lies unless scaling copied it.
   */
  owns?: (record: RawRecord, partition: number, partitions: number) => boolean;
  /** Where a group with no stored position starts reading (default: the log's first offset). */
  startAt?: (group: string, topic: string, log: PartitionLog) => number;
  /** Told what each durable task commit held (metrics); must return at once. */
  onCommitted?: (report: CommitReport) => void;
}


export const DEFAULT_PARTITIONS = 8;
/** How long a stop waits for sinks to finish what the other processors committed. */
const SINK_DRAIN_MS = 30_000;

export class EmbeddedRuntime<S = unknown> {
  readonly tasks: StreamTask<S>[] = [];
  private readonly logs = new Map<string, PartitionLog>();
  private readonly consumers = new Map<string, StreamTask<S>[]>();
  private readonly pendingProduce: { outputs: OutputRecord[]; resolve: () => void }[] = [];
  private committing = false;
  private commitAgain = false;
  private lastCommit = 0;
  private stopping = false;
  /** stop() has begun: only sinks still take records. */
  private draining = false;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly toPump = new Set<StreamTask<S>>();
  private pumpScheduled = false;
  private fatal: Error | undefined;
  readonly clock: () => number;

  private constructor(
    private readonly options: EmbeddedOptions<S>,
    readonly db: StateDb,
    readonly codecs: TopicCodecs,
    readonly partitions: number,
    readonly logId: string,
  ) {
    this.clock = options.clock ?? Date.now;
  }

  static async open<S>(options: EmbeddedOptions<S>): Promise<EmbeddedRuntime<S>> {
    const db = await openStateDb(join(options.dataDir, 'state'));
    try {
      const stored = await readJson<number>(db, metaKey('partitions'));
      const partitions = stored ?? options.partitions ?? DEFAULT_PARTITIONS;
      if (stored !== undefined && options.partitions !== undefined && options.partitions !== stored) {
        throw new Error(
          `${options.dataDir} holds a crawl with ${stored} partitions; use \`crawlstream scale --partitions ${options.partitions} --data-dir ${options.dataDir}\` to change it`,
        );
      }
      if (stored === undefined) await db.put(metaKey('partitions'), encodeJson(partitions));
      const registry = new LocalSchemaRegistry(db.sublevel<string, string>('registry', { keyEncoding: 'utf8', valueEncoding: 'utf8' }) as never);
      const codecs = new TopicCodecs(registry);
      for (const topic of options.topology.topics.values()) await codecs.addTopic(topic.name, topic.schema);
      let logId = await readJson<string>(db, metaKey('log-id'));
      if (logId === undefined) await db.put(metaKey('log-id'), encodeJson((logId = randomUUID())));
      const runtime = new EmbeddedRuntime(options, db, codecs, partitions, logId);
      await runtime.openLogs();
      await runtime.createTasks();
      return runtime;
    } catch (err) {
      await db.close();
      throw err;
    }
  }

  group(processor: string): string {
    return this.options.groupOf?.(processor) ?? processor;
  }

  log(topic: string, partition: number): PartitionLog {
    const log = this.logs.get(`${topic}/${partition}`);
    if (!log) throw new Error(`no log for ${topic}/${partition}`);
    return log;
  }

  /** Initializes every task (restoring in-memory indexes from stores) and starts processing. */
  async start(): Promise<void> {
    await Promise.all(this.tasks.map((t) => this.restore(t)));
    const byInterval = new Map<number, StreamTask<S>[]>();
    for (const t of this.tasks) {
      const every = t.node.definition.punctuateEveryMs;
      if (every) byInterval.set(every, [...(byInterval.get(every) ?? []), t]);
    }
    for (const [every, tasks] of byInterval) {
      const timer = setInterval(() => {
        if (this.stopping) return;
        const now = this.clock();
        for (const t of tasks) t.punctuate(now).catch((err) => this.fail(err as Error));
      }, every);
      this.timers.push(timer);
    }
    for (const t of this.tasks) this.pumpSoon(t);
    const retention = setInterval(() => this.applyRetention(), 10_000);
    retention.unref();
    this.timers.push(retention);
  }

  /** Appends a record from outside the topology (seeding) as a commit of its own. */
  produce(topic: string, key: string, value: unknown): Promise<void> {
    if (!this.options.topology.topics.has(topic)) throw new Error(`no topic named ${topic} in the topology`);
    const timestamp = this.clock();
    const outputs = [{ topic, key, value: this.codecs.encode(topic, value), timestamp }];
    return new Promise((resolve) => {
      this.pendingProduce.push({ outputs, resolve });
      this.requestCommit();
    });
  }

  /** Resolves once every topic is consumed and no processor holds pending work. */
  async whenIdle(signal?: AbortSignal): Promise<void> {
    let quietChecks = 0;
    while (!signal?.aborted) {
      if (this.fatal) throw this.fatal;
      quietChecks = this.isIdle() ? quietChecks + 1 : 0;
      if (quietChecks >= 3) return;
      await new Promise((r) => setTimeout(r, 40));
    }
  }

  /** Resolves once `signal` aborts (for applications that never drain); rejects on a fatal error. */
  async whenStopped(signal?: AbortSignal): Promise<void> {
    while (!signal?.aborted) {
      if (this.fatal) throw this.fatal;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** What every task has still to read, per input topic (committed log ends only). */
  lag(): TaskLag[] {
    const out: TaskLag[] = [];
    for (const t of this.tasks) {
      if (t.lifecycle.state !== 'running') continue;
      for (const topic of t.node.inputs) {
        out.push({ processor: t.node.name, partition: t.partition, topic, records: Math.max(0, this.log(topic, t.partition).end - t.nextOffset(topic)) });
      }
    }
    return out;
  }

  isIdle(): boolean {
    if (this.committing || this.commitAgain || this.pendingProduce.length) return false;
    for (const t of this.tasks) {
      if (!t.isIdle()) return false;
      for (const topic of t.node.inputs) if (t.nextOffset(topic) < this.log(topic, t.partition).end) return false;
    }
    return true;
  }

  /**
   * Stops taking new records, lets records in progress finish (in-flight fetches complete, so
   * nothing is fetched twice after a resume), commits, and closes.
   */
  async stop(): Promise<void> {
    if (this.stopping || this.draining) return;
    this.draining = true;
    for (const t of this.timers) clearInterval(t);
    // Processors that write nothing downstream (sinks) then read to the end of what the others
    // committed, so that what a stopped application produced is in its sinks, not left for its
    // next start; bounded, as a sink whose destination is away would hold the stop forever.
    const sinks = this.tasks.filter((t) => t.node.definition.outputs.length === 0);
    await Promise.all(this.tasks.filter((t) => !sinks.includes(t)).map((t) => t.close()));
    await this.commitNow();
    await this.drain(sinks, SINK_DRAIN_MS);
    this.stopping = true;
    await Promise.all(sinks.map((t) => t.close()));
    await this.commitNow();
    for (const log of this.logs.values()) log.close();
    await this.db.close();
    if (this.fatal) throw this.fatal;
  }

  /** Waits until the tasks have read their inputs to the end and finished, or `boundMs` passed. */
  private async drain(tasks: StreamTask<S>[], boundMs: number): Promise<void> {
    const behind = () => tasks.filter((t) => !t.isQuiescent() || t.node.inputs.some((topic) => t.nextOffset(topic) < this.log(topic, t.partition).end));
    const deadline = performance.now() + boundMs;
    while (behind().length && !this.fatal && performance.now() < deadline) {
      for (const t of behind()) this.pumpSoon(t);
      await new Promise((r) => setTimeout(r, 20));
    }
    const left = behind();
    if (left.length && !this.fatal) {
      this.options.log.warn(`stopping without waiting longer for ${[...new Set(left.map((t) => t.node.name))].join(', ')}: ` +
        `what they have not finished is done at the next start`);
    }
  }

  /** Deletes log segments every consumer has passed (and, for retained topics, that are old enough). */
  applyRetention(): void {
    for (const topic of this.options.topology.topics.values()) {
      const readers = this.consumers.get(topic.name) ?? [];
      for (let p = 0; p < this.partitions; p++) {
        const log = this.log(topic.name, p);
        let below = log.end;
        for (const t of readers) if (t.partition === p) below = Math.min(below, t.committedBase(topic.name));
        if (readers.length === 0 && topic.retention === 'until-consumed') continue;
        const olderThan = topic.retention === 'until-consumed' ? Infinity : this.clock() - topic.retention.ms;
        log.deleteBefore(below, olderThan);
      }
    }
  }

  private async openLogs(): Promise<void> {
    for (const topic of this.options.topology.topics.values()) {
      for (let p = 0; p < this.partitions; p++) {
        const log = new PartitionLog(join(this.options.dataDir, 'log', topic.name, String(p)), topic.name, p);
        log.open(await readLogEnd(this.db, topic.name, p));
        this.logs.set(`${topic.name}/${p}`, log);
      }
    }
  }

  private async createTasks(): Promise<void> {
    const names = this.options.processors;
    for (const node of this.options.topology.processors) {
      if (names && !names.includes(node.name)) continue;
      for (let p = 0; p < this.partitions; p++) {
        const owned = bucketsOfPartition(p, this.partitions);
        const owns = this.options.owns;
        const task: StreamTask<S> = new StreamTask({
          node,
          partition: p,
          services: this.options.services,
          stores: node.definition.stores.map((spec) => new LevelStore(this.db as never, spec, owned)),
          codecs: this.codecs,
          logId: this.logId,
          clock: this.clock,
          log: this.options.log,
          owns: owns ? (r) => owns(r, p, this.partitions) : (r) => partitionFor(r.key, this.partitions) === p,
          onActivity: () => {
            this.requestCommit();
            this.pumpSoon(task);
          },
          onCommitted: this.options.onCommitted,
        });
        this.tasks.push(task);
        for (const topic of node.inputs) this.consumers.set(topic, [...(this.consumers.get(topic) ?? []), task]);
      }
    }
  }

  /** Reads a task's positions and counters (its stores are the shared database itself) and starts it. */
  private async restore(task: StreamTask<S>): Promise<void> {
    task.restoring();
    const group = this.group(task.node.name);
    const positions = new Map();
    for (const topic of task.node.inputs) {
      const stored = await readPosition(this.db, group, topic, task.partition);
      const log = this.log(topic, task.partition);
      positions.set(topic, stored ?? { base: this.options.startAt?.(group, topic, log) ?? log.start, done: [] });
    }
    await task.start(positions, await readCounters(this.db, group, task.partition));
  }

  private pumpSoon(task: StreamTask<S>): void {
    this.toPump.add(task);
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      const tasks = [...this.toPump];
      this.toPump.clear();
      for (const t of tasks) this.pump(t);
    });
  }

  private pump(task: StreamTask<S>): void {
    if (this.stopping) return;
    for (const topic of task.node.inputs) {
      const log = this.log(topic, task.partition);
      for (let capacity = task.capacity(); capacity > 0; capacity = task.capacity()) {
        const records = log.read(task.nextOffset(topic), Math.min(capacity, 512));
        if (records.length === 0) break;
        task.offer(records);
      }
    }
  }

  private requestCommit(): void {
    if (this.committing) {
      this.commitAgain = true;
      return;
    }
    this.committing = true;
    const wait = Math.max(0, (this.options.commitIntervalMs ?? 5) - (performance.now() - this.lastCommit));
    setTimeout(() => {
      this.commitLoop().catch((err) => this.fail(err as Error));
    }, wait);
  }

  private async commitLoop(): Promise<void> {
    try {
      do {
        this.commitAgain = false;
        this.lastCommit = performance.now();
        await this.commitRound();
      } while (this.commitAgain && !this.fatal);
    } finally {
      this.committing = false;
    }
  }

  private async commitNow(): Promise<void> {
    while (this.committing) await new Promise((r) => setTimeout(r, 5));
    this.committing = true;
    try {
      await this.commitRound();
    } finally {
      this.committing = false;
    }
  }

  private async commitRound(): Promise<void> {
    const commits: [StreamTask<S>, TaskCommit][] = [];
    for (const task of this.tasks) {
      const commit = task.takeCommit();
      if (commit) commits.push([task, commit]);
    }
    const produced = this.pendingProduce.splice(0);
    if (commits.length === 0 && produced.length === 0) return;

    const appends = new Map<string, AppendRecord[]>();
    const route = (o: OutputRecord) => {
      const id = `${o.topic}/${partitionFor(o.key, this.partitions)}`;
      let list = appends.get(id);
      if (!list) appends.set(id, (list = []));
      list.push(o);
    };
    for (const [, c] of commits) for (const o of c.outputs) route(o);
    for (const p of produced) for (const o of p.outputs) route(o);

    type Op = { type: 'put'; key: Buffer; value: Buffer } | { type: 'del'; key: Buffer };
    const ops: Op[] = [];
    const published: [PartitionLog, LogEnd, ReturnType<PartitionLog['append']>['written']][] = [];
    for (const [id, records] of appends) {
      const log = this.logs.get(id)!;
      const { end, written } = log.append(records);
      ops.push({ type: 'put', key: logEndKey(log.topic, log.partition), value: encodeJson(end) });
      published.push([log, end, written]);
    }
    for (const [task, c] of commits) {
      for (const { writes } of c.stores) {
        for (const w of writes) ops.push(w.value === null ? { type: 'del', key: w.key } : { type: 'put', key: w.key, value: w.value });
      }
      const group = this.group(task.node.name);
      for (const { topic, position } of c.positions) {
        ops.push({ type: 'put', key: positionKey(group, topic, task.partition), value: encodeJson(position) });
      }
      for (const [name, total] of c.counters) {
        ops.push({ type: 'put', key: counterKey(group, task.partition, name), value: Buffer.from(String(total)) });
      }
    }
    try {
      await this.db.batch(ops as never);
    } catch (err) {
      throw new Error(`commit failed, stopping (the crawl resumes from the last commit): ${(err as Error).message}`);
    }
    for (const [log, end, written] of published) {
      log.publish(end, written);
      for (const t of this.consumers.get(log.topic) ?? []) if (t.partition === log.partition) this.pumpSoon(t);
    }
    for (const [task, c] of commits) task.committed(c);
    for (const p of produced) p.resolve();
  }

  private fail(err: Error): void {
    if (!this.fatal) {
      this.fatal = err;
      this.options.log.warn(`fatal: ${err.message}`);
    }
  }
}
