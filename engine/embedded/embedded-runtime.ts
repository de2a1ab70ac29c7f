// The embedded runtime: every processor of the topology in one process, over a durable partitioned
// log, with LevelDB stores. All tasks commit through one group commit (group-commit.ts): the outputs
// are appended to the log, then ONE LevelDB batch records the store writes, the input positions and
// the new log ends. A kill -9 at any point leaves either the whole commit or none of it. Opening
// refuses a data directory whose state does not match its log (data-dir.ts) and
// passes readers over records that log damage made unreadable (log-damage.ts). A failed commit is
// fatal: nothing is appended or committed after it, and every wait (produce, whenIdle, stop) ends
// with its error. Which task reads which log, and feeding them, is log-readers.ts.
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import type { Logger } from '../api.js';
import { LevelStore } from '../stores/level-store.js';
import { LocalSchemaRegistry } from '../avro/local-schema-registry.js';
import { TopicCodecs } from '../avro/topic-codecs.js';
import { bucketsOfPartition, partitionFor } from '../partitioning.js';
import { isSink, type Topology } from '../topology.js';
import { StreamTask, type CommitReport, type RawRecord } from '../task/stream-task.js';
import type { TaskLag } from '../task/task-metrics.js';
import { catchUp, DEFAULT_STOP_GRACE_MS, leaveUnfinished, stopClock, taskLag, type StopReport, type Unfinished } from './catch-up.js';
import { PartitionLog, type LogEnd } from './partition-log.js';
import { encodeJson, logEndKey, metaKey, openStateDb, positionKey, readCounters, readJson, readLogEnd, readPosition, type StateDb } from './state-db.js';
import { GroupCommit, type CommitHost } from './group-commit.js';
import { checkBeforeState, refuseLostCommits, settleIdentity, type UncommittedTail } from './data-dir.js';
import { LogDamage, type DamageSummary } from './log-damage.js';
import { LogReaders } from './log-readers.js';

export interface EmbeddedOptions<S> {
  dataDir: string;
  topology: Topology<S>;
  /** Partition count for a new data directory; an existing one keeps its own (see `crawlstream scale`). */
  partitions?: number;
  /** Processors to run (default all). */
  processors?: readonly string[];
  /** What the topology's processors are created from (clients, pools, configuration). */
  services: S;
  logger: Logger;
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
  /** Segment file size before a new one is started (default 128 MiB; tests use small ones). */
  segmentBytes?: number;
  /** Told what each durable task commit held (metrics); must return at once. */
  onCommitted?: (report: CommitReport) => void;
}

export const DEFAULT_PARTITIONS = 8;
export { DEFAULT_STOP_GRACE_MS, type StopReport, type Unfinished } from './catch-up.js';

export class EmbeddedRuntime<S = unknown> implements CommitHost<S> {
  readonly tasks: StreamTask<S>[] = [];
  private readonly logs = new Map<string, PartitionLog>();
  private readonly readers = new LogReaders<S>((topic, p) => this.log(topic, p), () => this.state === 'stopped');
  private commits!: GroupCommit<S>;
  /**
   * running; draining once stop() began (only sinks still take records); stopped once every task is
   * closed (nothing more is read). A fatal error is kept apart (`fatal`): every wait ends with it.
   */
  private state: 'running' | 'draining' | 'stopped' = 'running';
  private readonly timers: NodeJS.Timeout[] = [];
  private fatal: Error | undefined;
  private onFatal!: () => void;
  /** Settles when a fatal error is recorded: long waits race it. */
  private readonly fatalSignal = new Promise<void>((resolve) => (this.onFatal = resolve));
  /** Records log damage made unreadable, and which readers had not processed them. */
  private readonly damage = new LogDamage();
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

  /**
   * Opens (or creates) the data directory. Throws a DataDirRefusal, before anything is written or
   * read by a processor, when the state and the log do not belong together or the state lost commits.
   */
  static async open<S>(options: EmbeddedOptions<S>): Promise<EmbeddedRuntime<S>> {
    const found = checkBeforeState(options.dataDir);
    const db = await openStateDb(join(options.dataDir, 'state'));
    let runtime: EmbeddedRuntime<S> | undefined;
    try {
      const logId = await settleIdentity(db, options.dataDir, found, options.logger);
      const stored = await readJson<number>(db, metaKey('partitions'));
      const partitions = stored ?? options.partitions ?? DEFAULT_PARTITIONS;
      if (stored !== undefined && options.partitions !== undefined && options.partitions !== stored) {
        throw new Error(
          `${options.dataDir} holds a crawl with ${stored} partitions; use \`crawlstream scale --partitions ${options.partitions} --data-dir ${options.dataDir}\` to change it`,
        );
      }
      const registry = new LocalSchemaRegistry(db.sublevel<string, string>('registry', { keyEncoding: 'utf8', valueEncoding: 'utf8' }) as never);
      runtime = new EmbeddedRuntime(options, db, new TopicCodecs(registry), partitions, logId);
      await runtime.openLogs();
      if (stored === undefined) await db.put(metaKey('partitions'), encodeJson(partitions));
      for (const topic of options.topology.topics.values()) await runtime.codecs.addTopic(topic.name, topic.schema, topic.name, topic.maxRecordBytes);
      await runtime.createTasks();
      return runtime;
    } catch (err) {
      for (const log of runtime?.logs.values() ?? []) log.close();
      await db.close();
      throw err;
    }
  }

  /** Records lost to log damage so far: how many, and how many some reader had not processed. */
  damageSummary(): DamageSummary {
    return this.damage.summary();
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
    this.damage.report(this.options.logger);
    const byInterval = new Map<number, StreamTask<S>[]>();
    for (const t of this.tasks) {
      const every = t.node.definition.punctuateEveryMs;
      if (every) byInterval.set(every, [...(byInterval.get(every) ?? []), t]);
    }
    for (const [every, tasks] of byInterval) {
      const timer = setInterval(() => {
        if (this.state === 'stopped') return;
        const now = this.clock();
        for (const t of tasks) t.punctuate(now).catch((err) => this.fail(err as Error));
      }, every);
      this.timers.push(timer);
    }
    for (const t of this.tasks) this.readers.pumpSoon(t);
    const retention = setInterval(() => this.applyRetention(), 10_000);
    retention.unref();
    this.timers.push(retention);
  }

  /** Appends a record from outside the topology (seeding) as a commit of its own. */
  produce(topic: string, key: string, value: unknown): Promise<void> {
    if (!this.options.topology.topics.has(topic)) throw new Error(`no topic named ${topic} in the topology`);
    const timestamp = this.clock();
    return this.commits.produce([{ topic, key, value: this.codecs.encode(topic, value), timestamp }]);
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
    return taskLag(this.tasks, (topic, p) => this.log(topic, p).end);
  }

  isIdle(): boolean {
    if (this.commits.busy) return false;
    for (const t of this.tasks) {
      if (!t.isIdle()) return false;
      for (const topic of t.node.inputs) if (t.nextOffset(topic) < this.log(topic, t.partition).end) return false;
    }
    return true;
  }

  /**
   * Stops taking new records, lets records in progress finish (nothing is fetched twice after a
   * resume) and sinks write what the others committed, commits and closes, all within `graceMs`;
   * what was still in progress then stays uncommitted for the next start, counted in the report.
   */
  async stop(options: { dropTopics?: readonly string[]; graceMs?: number } = {}): Promise<StopReport> {
    if (this.state !== 'running') return { unfinished: [] };
    this.state = 'draining';
    for (const t of this.timers) clearInterval(t);
    const { graceOver, othersOver, left, clear } = stopClock(options.graceMs ?? DEFAULT_STOP_GRACE_MS);
    const endOf = (topic: string, p: number) => this.log(topic, p).end;
    let unfinished: Unfinished[] = [];
    try {
      if (!this.fatal) {
        // Sinks (no outputs) then read to the end of what the others committed; every wait is bounded by the grace.
        const sinks = this.tasks.filter((t) => isSink(t.node));
        const others = Promise.all(this.tasks.filter((t) => !sinks.includes(t)).map((t) => t.close()));
        await Promise.race([others, this.fatalSignal, othersOver]);
        if (!this.fatal) await Promise.race([this.commits.now(), this.fatalSignal]);
        if (!this.fatal) await catchUp({ tasks: sinks, endOf, pump: (t) => this.readers.pumpSoon(t), failed: () => !!this.fatal, boundMs: left() });
        await Promise.race([Promise.all(sinks.map((t) => t.close())), this.fatalSignal, graceOver]);
      }
      this.state = 'stopped';
      if (this.fatal) {
        await Promise.all(this.tasks.map((t) => t.abandon().catch(() => undefined)));
      } else {
        await this.commits.now(); // what finished in time; what did not stays for the next start, untouched
        unfinished = leaveUnfinished(this.tasks, endOf);
        if (options.dropTopics?.length && !this.fatal) await this.dropTopics(options.dropTopics);
      }
    } finally {
      clear();
      this.commits.close();
      for (const log of this.logs.values()) log.close();
      await this.db.close();
    }
    if (this.fatal) throw this.fatal;
    return { unfinished };
  }

  /** Deletes log segments every consumer has passed (and, for retained topics, that are old enough). */
  applyRetention(): void {
    for (const topic of this.options.topology.topics.values()) {
      const readers = this.readers.of(topic.name);
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

  /** Inspects every partition before changing any: a refusal leaves the data directory as it was found. */
  private async openLogs(): Promise<void> {
    const round = (await readJson<number>(this.db, metaKey('commit-round'))) ?? 0;
    this.commits = new GroupCommit(this, round, this.options.commitIntervalMs ?? 5);
    const opening: [PartitionLog, LogEnd | undefined][] = [];
    const tails: UncommittedTail[] = [];
    for (const topic of this.options.topology.topics.values()) {
      for (let p = 0; p < this.partitions; p++) {
        const log = new PartitionLog(join(this.options.dataDir, 'log', topic.name, String(p)), topic.name, p, { segmentBytes: this.options.segmentBytes });
        this.logs.set(`${topic.name}/${p}`, log);
        const end = await readLogEnd(this.db, topic.name, p);
        const { uncommitted } = log.inspect(end);
        tails.push({ topic: topic.name, partition: p, end: end?.end ?? 0, ...uncommitted });
        opening.push([log, end]);
      }
    }
    refuseLostCommits(this.options.dataDir, round, tails);
    for (const [log, end] of opening) {
      log.open(end);
      this.damage.add(log);
    }
  }

  /** Forgets topics whose logs are about to be deleted (a replay's private topics), so no later open finds them missing. */
  private async dropTopics(topics: readonly string[]): Promise<void> {
    const ops: { type: 'del'; key: Buffer }[] = [];
    for (const topic of topics) {
      for (let p = 0; p < this.partitions; p++) ops.push({ type: 'del', key: logEndKey(topic, p) });
      for (const t of this.readers.of(topic)) ops.push({ type: 'del', key: positionKey(this.group(t.node.storedName), topic, t.partition) });
    }
    await this.db.batch(ops as never);
    for (const topic of topics) rmSync(join(this.options.dataDir, 'log', topic), { recursive: true, force: true });
  }

  private async createTasks(): Promise<void> {
    const names = this.options.processors;
    const scaled = ((await readJson<unknown[]>(this.db, metaKey('scale-events'))) ?? []).length > 0;
    for (const node of this.options.topology.processors) {
      if (names && !names.includes(node.name) && !names.includes(node.storedName)) continue;
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
          logger: this.options.logger,
          // Records of other partitions' keys lie in a partition only once partitions were added.
          owns: owns ? (r) => owns(r, p, this.partitions) : scaled ? (r) => partitionFor(r.key, this.partitions) === p : undefined,
          onActivity: () => {
            this.commits.request();
            this.readers.pumpSoon(task);
          },
          onCommitted: this.options.onCommitted,
        });
        this.tasks.push(task);
        this.readers.add(task);
      }
    }
    for (const log of this.logs.values()) log.setReaders(this.readers.of(log.topic).length > 0);
  }

  /** Reads a task's positions and counters (its stores are the shared database itself) and starts it. */
  private async restore(task: StreamTask<S>): Promise<void> {
    task.restoring();
    const group = this.group(task.node.storedName);
    const positions = new Map();
    let lost = 0;
    for (const topic of task.node.inputs) {
      const stored = await readPosition(this.db, group, topic, task.partition);
      const log = this.log(topic, task.partition);
      const { position, skipped } = this.damage.passOver(group, log, stored ?? { base: this.options.startAt?.(group, topic, log) ?? log.start, done: [] });
      lost += skipped;
      positions.set(topic, position);
    }
    await task.start(positions, await readCounters(this.db, group, task.partition));
    // Counted once the stored totals are back, so that they add up across runs.
    if (lost) task.metrics.count('lost-records', lost);
  }

  /** Records a fatal error: no commit follows it, and every wait ends with it. */
  fail(err: Error): void {
    if (!this.fatal) {
      this.fatal = err;
      this.options.logger.warn(`fatal: ${err.message}`);
      this.onFatal();
    }
    this.commits.rejectPending(this.fatal);
  }

  get failed(): Error | undefined { return this.fatal; }

  /** For the group commit: the log of `topic/partition`, and its readers to wake. */
  logOf(id: string): PartitionLog {
    return this.logs.get(id)!;
  }

  published(log: PartitionLog): void {
    this.readers.published(log);
  }
}
