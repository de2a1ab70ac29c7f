// What one worker transaction writes, built from its members' commits: each task's outputs to their
// topics, its store writes to its changelogs, its input positions and counters to its positions
// changelog, claims and releases to the owners topic; and the group offsets its positions imply (the
// transaction sends them when they are due).
import type { Message } from 'kafkajs';
import { partitionFor } from '../partitioning.js';
import type { ProcessorNode } from '../topology.js';
import type { TaskCommit } from '../task/task-commit.js';
import { type KafkaNames, POSITIONS_STORE } from './kafka-names.js';
import { ownerRecord } from './task-owners.js';

/** A task as the worker's transactions see it (a KafkaTaskHost). */
export interface CommitParticipant {
  readonly id: string;
  readonly node: Pick<ProcessorNode<unknown>, 'name' | 'storedName'>;
  readonly partition: number;
  /** Partition count of the application (where outputs go). */
  readonly partitions: number;
  takeCommit(): TaskCommit | undefined;
  /** The task has left cleanly: its next commit is its last and releases it. */
  readonly leaving: boolean;
  /** The transaction holding `commit` is committed; `ends` are the changelog ends it reached (`topic/partition`). */
  committed(commit: TaskCommit, ends: ReadonlyMap<string, number>): Promise<void>;
}

export const POSITION_KEY = (topic: string) => Buffer.from(`pos!${topic}`, 'utf8');
export const COUNTER_KEY = (name: string) => Buffer.from(`ctr!${name}`, 'utf8');
export const COUNTER_PREFIX = 'ctr!';

/** A member's share of one transaction: what it commits, and whether the transaction releases it. */
export interface Part {
  m: CommitParticipant;
  commit: TaskCommit | undefined;
  leaving: boolean;
}

/** Group → topic → partition → the offset to commit for it. */
export type GroupOffsets = Map<string, Map<string, Map<number, string>>>;

/**
 * The records of one transaction by topic: `claims` first (a task claimed in the same transaction
 * as its first commit), then every part's records and, last, its release. Adds each part's positions
 * to `offsets`.
 */
export function transactionRecords(parts: readonly Part[], claims: readonly { task: string }[], names: KafkaNames, transactionalId: string, offsets: GroupOffsets): Map<string, Message[]> {
  const byTopic = new Map<string, Message[]>();
  const listOf = (topic: string) => {
    let list = byTopic.get(topic);
    if (!list) byTopic.set(topic, (list = []));
    return list;
  };
  const push = (topic: string, m: Message) => listOf(topic).push(m);
  // Outputs by their logical topic, whose name strings the processors share: no physical name built
  // and hashed for each of a transaction's thousands of records.
  const outputsOf = new Map<string, Message[]>();
  const outputs = (logical: string) => {
    let list = outputsOf.get(logical);
    if (!list) outputsOf.set(logical, (list = listOf(names.topic(logical))));
    return list;
  };
  for (const c of claims) push(names.taskOwners, ownerRecord(c.task, transactionalId, false));
  for (const { m, commit, leaving } of parts) {
    const { node, partition } = m;
    if (commit) {
      for (const o of commit.outputs) {
        outputs(o.topic).push({ key: o.key, value: o.value, partition: partitionFor(o.key, m.partitions), timestamp: String(o.timestamp) });
      }
      for (const { store, writes } of commit.stores) {
        const topic = names.changelog(node.storedName, store.storedName);
        for (const w of writes) push(topic, { key: w.key, value: w.value, partition });
      }
      const positions = names.changelog(node.storedName, POSITIONS_STORE);
      for (const { topic, position } of commit.positions) push(positions, { key: POSITION_KEY(topic), value: Buffer.from(JSON.stringify(position)), partition });
      for (const [name, total] of commit.counters) push(positions, { key: COUNTER_KEY(name), value: Buffer.from(String(total)), partition });
      for (const { topic, position } of commit.positions) {
        const group = offsets.get(names.group(node.storedName)) ?? new Map<string, Map<number, string>>();
        offsets.set(names.group(node.storedName), group);
        const partitions = group.get(names.topic(topic)) ?? new Map<number, string>();
        group.set(names.topic(topic), partitions);
        partitions.set(partition, String(position.base));
      }
    }
    if (leaving) push(names.taskOwners, ownerRecord(m.id, transactionalId, true));
  }
  return byTopic;
}
