// What runtimes and tasks exchange: raw records in, encoded outputs and commits out.
import type { Logger } from '../api.js';
import type { LevelStore } from '../stores/level-store.js';
import type { ProcessorNode } from '../topology.js';
import type { TopicCodecs } from '../avro/topic-codecs.js';
import type { CommitReport } from './commit-report.js';

export interface RawRecord {
  topic: string;
  partition: number;
  offset: number;
  timestamp: number;
  key: string;
  value: Buffer;
}

export interface OutputRecord {
  topic: string;
  key: string;
  value: Buffer;
  timestamp: number;
}

export type { TaskCommit } from './task-commit.js';

export interface TaskOptions<S> {
  node: ProcessorNode<S>;
  partition: number;
  services: S;
  stores: LevelStore<unknown, unknown>[];
  codecs: TopicCodecs;
  logId: string;
  clock: () => number;
  logger: Logger;
  /**
   * Whether this task processes the record; the others belong to another partition's task. Absent:
   * every record of the partition is the task's (no partitions were ever added).
   */
  owns?: (record: RawRecord) => boolean;
  /** Called whenever the task has something new to commit or can take more input. */
  onActivity: () => void;
  /** Called after each commit the runtime made durable. Must return at once and not throw. */
  onCommitted?: (report: CommitReport) => void;
}

/** What a hand-over left to the next owner. */
export interface HandOverReport {
  /** Concurrent records still running at the bound: told to stop, unfinished, redone by the next owner. */
  cut: number;
  /** Records read but never started: the next owner reads them again. */
  unstarted: number;
}
