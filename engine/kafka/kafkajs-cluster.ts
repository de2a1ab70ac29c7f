// kafkajs's own cluster object, for the few requests its public API does not make (a high watermark
// read uncommitted, an offset commit without joining a group). Made with the constructor the Kafka
// instance itself uses, so it shares its brokers, TLS, SASL and retry settings. kafkajs is pinned at
// 2.2.4 and stays behind this adapter: these are the only places that reach into it.
import type { Kafka } from 'kafkajs';

/** The part of a kafkajs 2.2.4 broker connection used here. */
export interface KafkajsBroker {
  offsetCommit(request: {
    groupId: string; groupGenerationId: number; memberId: string; retentionTime?: number;
    topics: { topic: string; partitions: { partition: number; offset: string }[] }[];
  }): Promise<unknown>;
  addOffsetsToTxn(request: { transactionalId: string; producerId: string; producerEpoch: number; groupId: string }): Promise<unknown>;
  txnOffsetCommit(request: {
    transactionalId: string; groupId: string; producerId: string; producerEpoch: number;
    topics: { topic: string; partitions: { partition: number; offset: string }[] }[];
  }): Promise<unknown>;
}

/** The part of a kafkajs 2.2.4 cluster used here. */
export interface KafkajsCluster {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  addTargetTopic(topic: string): Promise<void>;
  fetchTopicsOffset(topics: { topic: string; fromBeginning: boolean; partitions: { partition: number }[] }[]): Promise<{ topic: string; partitions: { partition: number; offset: string }[] }[]>;
  /** coordinatorType TRANSACTION_COORDINATOR finds a transactional id's coordinator (groupId: the id). */
  findGroupCoordinator(request: { groupId: string; coordinatorType?: number }): Promise<KafkajsBroker>;
}

export const READ_UNCOMMITTED = 0;
export const READ_COMMITTED = 1;
/** kafkajs's COORDINATOR_TYPES.TRANSACTION (FindCoordinator's key type 1). */
export const TRANSACTION_COORDINATOR = 1;

export function kafkajsCluster(kafka: Kafka, isolationLevel: number, purpose: string): KafkajsCluster {
  const create = Object.getOwnPropertySymbols(kafka).find((s) => s.description === 'private:Kafka:createCluster');
  const make = create && (kafka as unknown as Record<symbol, unknown>)[create];
  if (typeof make !== 'function') throw new Error(`this kafkajs version cannot ${purpose} (its cluster constructor moved)`);
  return make({ allowAutoTopicCreation: false, isolationLevel }) as KafkajsCluster;
}
