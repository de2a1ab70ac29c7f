// The embedded runtime's group commit: every task's finished work and every pending seed record in
// one round. The round's outputs are appended to the logs, stamped with the round's number, then ONE
// LevelDB batch records the store writes, the input positions, the new log ends and the round
// number; only then do the records become visible. Rounds run one after another, so a kill -9
// leaves past the recorded ends at most the records of the round it interrupted.
//
// A failed batch is fatal: the logs then hold records past the recorded ends, and appending a later
// round after them would look, on the next open, like commits the state had lost. So no round runs
// after it, and every pending seed record is rejected with the error.
import { partitionFor } from '../partitioning.js';
import type { OutputRecord, StreamTask, TaskCommit } from '../task/stream-task.js';
import { commitStoreOps, type Committer, type StoreOp } from '../task/task-commit.js';
import { writeBatch } from '../stores/write-batch.js';
import type { AppendRecord, LogEnd, PartitionLog } from './partition-log.js';
import { counterKey, encodeJson, logEndKey, metaKey, positionKey, type StateDb } from './state-db.js';

export interface CommitHost<S> {
  readonly db: StateDb;
  readonly tasks: readonly StreamTask<S>[];
  readonly partitions: number;
  /** The log of `topic/partition`. */
  logOf(id: string): PartitionLog;
  group(processor: string): string;
  /** New records are visible in this log: wake its readers. */
  published(log: PartitionLog): void;
  /** Records a fatal error; the host ends its waits with it. */
  fail(err: Error): void;
  readonly failed: Error | undefined;
}

interface Pending { outputs: OutputRecord[]; resolve: () => void; reject: (err: Error) => void }

export class GroupCommit<S> implements Committer {
  private readonly pending: Pending[] = [];
  private committing = false;
  private again = false;
  private lastCommit = 0;
  private closed = false;

  /** `round`: the last commit round the state records. */
  constructor(
    private readonly host: CommitHost<S>,
    private round: number,
    private readonly intervalMs: number,
  ) {}

  /** True while a round runs or is due. */
  get busy(): boolean {
    return this.committing || this.again || this.pending.length > 0;
  }

  /** Commits records from outside the topology (seeding); settles when they are durable, or with the failure. */
  produce(outputs: OutputRecord[]): Promise<void> {
    if (this.host.failed) return Promise.reject(this.host.failed);
    return new Promise((resolve, reject) => {
      this.pending.push({ outputs, resolve, reject });
      this.request();
    });
  }

  /** Something has work to commit: a round runs soon (at most one every `intervalMs`). */
  request(): void {
    if (this.host.failed || this.closed) return;
    if (this.committing) {
      this.again = true;
      return;
    }
    this.committing = true;
    const wait = Math.max(0, this.intervalMs - (performance.now() - this.lastCommit));
    setTimeout(() => {
      this.loop().catch((err) => this.host.fail(err as Error));
    }, wait);
  }

  /** One last round once the one running is done; a failure is recorded with the host. */
  async now(): Promise<void> {
    while (this.committing && !this.host.failed) await new Promise((r) => setTimeout(r, 5));
    if (this.host.failed) return;
    this.committing = true;
    try {
      await this.commitRound();
    } catch (err) {
      this.host.fail(err as Error);
    } finally {
      this.committing = false;
    }
  }

  /** Nothing more is committed (the database is closing). */
  close(): void {
    this.closed = true;
  }

  rejectPending(err: Error): void {
    for (const p of this.pending.splice(0)) p.reject(err);
  }

  private async loop(): Promise<void> {
    try {
      do {
        this.again = false;
        this.lastCommit = performance.now();
        await this.commitRound();
      } while (this.again && !this.host.failed);
    } finally {
      this.committing = false;
    }
  }

  private async commitRound(): Promise<void> {
    if (this.host.failed) return;
    const commits: [StreamTask<S>, TaskCommit][] = [];
    for (const task of this.host.tasks) {
      const commit = task.takeCommit();
      if (commit) commits.push([task, commit]);
    }
    const produced = this.pending.splice(0);
    if (commits.length === 0 && produced.length === 0) return;

    // Per topic, per partition: no string is built per record to find its list.
    const appends = new Map<string, AppendRecord[][]>();
    const partitions = this.host.partitions;
    const route = (o: OutputRecord) => {
      let lists = appends.get(o.topic);
      if (!lists) appends.set(o.topic, (lists = []));
      const p = partitionFor(o.key, partitions);
      (lists[p] ??= []).push(o);
    };
    for (const [, c] of commits) for (const o of c.outputs) route(o);
    for (const p of produced) for (const o of p.outputs) route(o);

    const round = this.round + 1;
    const ops: StoreOp[] = [{ type: 'put', key: metaKey('commit-round'), value: encodeJson(round) }];
    const published: [PartitionLog, LogEnd, ReturnType<PartitionLog['append']>['written']][] = [];
    for (const [topic, lists] of appends) {
      lists.forEach((records, p) => {
        const log = this.host.logOf(`${topic}/${p}`);
        const { end, written } = log.append(records, round);
        ops.push({ type: 'put', key: logEndKey(log.topic, log.partition), value: encodeJson(end) });
        published.push([log, end, written]);
      });
    }
    for (const [task, c] of commits) {
      commitStoreOps(c, ops);
      const group = this.host.group(task.node.storedName);
      for (const { topic, position } of c.positions) {
        ops.push({ type: 'put', key: positionKey(group, topic, task.partition), value: encodeJson(position) });
      }
      for (const [name, total] of c.counters) {
        ops.push({ type: 'put', key: counterKey(group, task.partition, name), value: Buffer.from(String(total)) });
      }
    }
    try {
      await writeBatch(this.host.db, ops);
    } catch (err) {
      const failure = new Error(`commit failed, stopping (the crawl resumes from the last commit): ${(err as Error).message}`);
      for (const p of produced) p.reject(failure);
      throw failure;
    }
    this.round = round;
    for (const [log, end, written] of published) {
      log.publish(end, written);
      this.host.published(log);
    }
    for (const [task, c] of commits) task.committed(c);
    for (const p of produced) p.resolve();
  }
}
