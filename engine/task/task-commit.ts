// What a task commit holds, and the one place where its store writes become LevelDB operations.
// A runtime makes commits durable through a Committer: embedded, the group commit (one LevelDB batch
// for every task, engine/embedded/group-commit.ts); on Kafka, one transaction per worker for every
// task it runs (engine/kafka/worker-transactions.ts); the test driver, after every record.
import type { LevelStore, StoreWrite } from '../stores/level-store.js';
import type { StoreOp } from '../stores/write-batch.js';
import type { InputPosition } from './input-position.js';
import type { OutputRecord } from './task-records.js';

/** Everything a task has finished since its last commit, to become durable together or not at all. */
export interface TaskCommit {
  /** Encoded records for output topics (dead letters included), in the order they were forwarded. */
  outputs: OutputRecord[];
  /** Each store's writes since the last commit: the last value per key, null for a delete. */
  stores: { store: LevelStore<unknown, unknown>; writes: StoreWrite[] }[];
  /** Input positions that moved: the oldest unfinished offset and the finished ones above it. */
  positions: { topic: string; position: InputPosition }[];
  /** Counter totals that changed. */
  counters: Map<string, number>;
}

export type { StoreOp };

/** Store writes (or changelog entries) as LevelDB batch operations, appended to `into`. */
export function storeOps(writes: Iterable<StoreWrite>, into: StoreOp[] = []): StoreOp[] {
  for (const w of writes) into.push(w.value === null ? { type: 'del', key: w.key } : { type: 'put', key: w.key, value: w.value });
  return into;
}

/** Every store write of a commit as LevelDB batch operations, appended to `into`. */
export function commitStoreOps(commit: TaskCommit, into: StoreOp[] = []): StoreOp[] {
  for (const { writes } of commit.stores) storeOps(writes, into);
  return into;
}

/** How a runtime makes its tasks' commits durable. */
export interface Committer {
  /** A task has something to commit: a round runs within the runtime's commit interval. */
  request(): void;
  /** Commits what every task has finished now; resolves once it is durable or the failure is recorded. */
  now(): Promise<void>;
}
