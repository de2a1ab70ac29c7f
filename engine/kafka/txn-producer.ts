// The worker's transactional producer, on @platformatic/kafka; the rest of the adapter stays on kafkajs.
//
// Why a second client: kafkajs 2.2.4 encodes a Produce request by copying every record through a
// chain of zero-filled buffers that double as they grow, and checksums the batch in JavaScript. In a
// crawl that was the largest single cost of a Kafka worker's main thread; measured beside it
// (bench/kafka-clients.ts) @platformatic/kafka encoded the same transactional batches for a third of
// the CPU and cost the broker less, and in paired bench crawls the worker's CPU a page fell by a fifth
// (README, "Kafka transactions"). Consumers, groups, admin and the owners' fencer stay on kafkajs:
// their cost was small, and they carry the assignor and the fencing the runtime's guarantees rest on.
//
// The broker knows a transaction by its id, producer id and epoch, not by the client that opened it,
// so group offsets still go through kafkajs's cluster with this producer's id and epoch
// (AddOffsetsToTxn, then TxnOffsetCommit v0–v1 with no generation, as kafkajs's own producer sent them).
import { Producer, connectionsApiChannel, protocolAPIsById } from '@platformatic/kafka';
import type { Kafka, RecordMetadata, TopicMessages } from 'kafkajs';
import { kafkajsCluster, READ_COMMITTED, TRANSACTION_COORDINATOR, type KafkajsCluster } from './kafkajs-cluster.js';

export interface GroupOffsetsInTxn {
  consumerGroupId: string;
  topics: { topic: string; partitions: { partition: number; offset: string }[] }[];
}

/** One open transaction. Errors carry the broker's error names in their message (PRODUCER_FENCED, …) and in `type`. */
export interface OpenTransaction {
  /** Appends records; answers, per partition written to, its base offset. */
  send(topics: TopicMessages[]): Promise<RecordMetadata[]>;
  sendOffsets(offsets: GroupOffsetsInTxn): Promise<void>;
  commit(): Promise<void>;
  abort(): Promise<void>;
}

export interface TxnProducer {
  begin(): Promise<OpenTransaction>;
  close(): Promise<void>;
}

export interface TxnProducerOptions {
  brokers: string[];
  transactionalId: string;
  clientId?: string;
  /** For group offsets (kafkajs's cluster) and nothing else. */
  kafka: Kafka;
  /** Told every request this producer sends, by API name (the worker's request counts). */
  onRequest?: (apiName: string) => void;
  transactionTimeoutMs?: number;
}

/**
 * Backoff for a retriable error: 20 ms doubling to 2 s, ~70 s in all (kafkajs's settings in
 * kafka-cluster.ts). A transaction's first AddPartitionsToTxn often meets CONCURRENT_TRANSACTIONS while
 * the broker writes the last one's markers; the client's default (a flat second) stalled every hop.
 */
const RETRIES = 40;
const retryDelay = (_client: unknown, _op: string, attempt: number) => Math.min(20 * 2 ** (attempt - 1), 2_000);

/**
 * Opens the producer and runs InitProducerId, which fences every earlier producer under the same id
 * and ends its open transaction. The client would send producer id 0, epoch 0 in that request, which
 * the broker answers PRODUCER_FENCED once the id was used before (our reset does just that): -1, -1
 * asks for a fresh epoch, as every other client does.
 */
export async function openTxnProducer(o: TxnProducerOptions): Promise<TxnProducer> {
  const producer = new Producer({
    clientId: o.clientId ?? 'crawlstream', bootstrapBrokers: o.brokers, transactionalId: o.transactionalId,
    idempotent: true, producerId: -1n, producerEpoch: -1, retries: RETRIES, retryDelay,
    // The client's one `timeout` is the transaction's (InitProducerId) and a produce's wait for acks;
    // each request still times out on its own after the client's 30 s.
    timeout: o.transactionTimeoutMs ?? 60_000,
  });
  const unsubscribe = countRequests(o.onRequest);
  // One connection, however many groups' offsets ask for it at once: a transaction sends every
  // group's together, and each of them making its own left all but one connected after close (a
  // process that never exited, seen in the conformance suite).
  let cluster: Promise<KafkajsCluster> | undefined;
  const offsetsCluster = () => (cluster ??= (async () => {
    const c = kafkajsCluster(o.kafka, READ_COMMITTED, 'commit group offsets in a transaction');
    try {
      await c.connect();
      return c;
    } catch (err) {
      cluster = undefined; // the next transaction tries again
      await c.disconnect().catch(() => {});
      throw err;
    }
  })());
  const close = async () => {
    unsubscribe();
    await Promise.allSettled([producer.close(true), cluster?.then((c) => c.disconnect())]);
  };
  try {
    // An empty transaction: begun to run InitProducerId, then dropped without a request.
    await named(async () => (await producer.beginTransaction()).cancel());
  } catch (err) {
    await close();
    throw err;
  }
  return {
    close,
    async begin() {
      const tx = await named(() => producer.beginTransaction());
      return {
        send: (topics) => named(async () => {
          const messages = [];
          for (const t of topics) {
            for (const m of t.messages) {
              messages.push({
                topic: t.topic, partition: m.partition, key: bytes(m.key), value: bytes(m.value) ?? undefined,
                timestamp: m.timestamp === undefined ? undefined : BigInt(m.timestamp),
              });
            }
          }
          const { offsets = [] } = await tx.send({ messages });
          return offsets.map((r) => ({ topicName: r.topic, partition: r.partition, errorCode: 0, baseOffset: String(r.offset) }));
        }),
        sendOffsets: async (offsets) => {
          const id = { transactionalId: o.transactionalId, producerId: String(producer.producerId), producerEpoch: producer.producerEpoch!, groupId: offsets.consumerGroupId };
          const c = await offsetsCluster();
          await (await c.findGroupCoordinator({ groupId: o.transactionalId, coordinatorType: TRANSACTION_COORDINATOR })).addOffsetsToTxn(id);
          await (await c.findGroupCoordinator({ groupId: offsets.consumerGroupId })).txnOffsetCommit({ ...id, topics: offsets.topics });
        },
        commit: () => named(() => tx.commit()),
        abort: () => named(() => tx.abort()),
      };
    },
  };
}

function bytes(v: Buffer | string | null | undefined): Buffer | undefined {
  if (v == null) return undefined;
  return typeof v === 'string' ? Buffer.from(v) : v;
}

interface ClientError { message?: string; apiId?: string; errors?: ClientError[] }

/** The broker's error names anywhere in a client error (it nests them), e.g. ['PRODUCER_FENCED']. */
export function errorNames(err: ClientError, into: string[] = []): string[] {
  if (err.apiId && !into.includes(err.apiId)) into.push(err.apiId);
  for (const e of err.errors ?? []) errorNames(e, into);
  return into;
}

/** Runs `fn`; a client error comes out with its broker error names in its message and `type`. */
async function named<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    const names = errorNames(err as ClientError);
    if (names.length === 0) throw err;
    const e = new Error(`${(err as Error).message} (${names.join(', ')})`, { cause: err });
    (e as Error & { type: string }).type = names[names.length - 1];
    throw e;
  }
}

/** Counts this producer's requests from the client's diagnostics channel (per thread, like the client). */
function countRequests(onRequest: ((apiName: string) => void) | undefined): () => void {
  if (!onRequest) return () => {};
  const subscribers = {
    start(message: unknown) {
      // Only this producer speaks @platformatic/kafka in this thread (its channels are per thread).
      const d = message as { apiKey?: number };
      if (d.apiKey !== undefined) onRequest(protocolAPIsById[d.apiKey] ?? `api ${d.apiKey}`);
    },
    end() {}, asyncStart() {}, asyncEnd() {}, error() {},
  };
  connectionsApiChannel.subscribe(subscribers);
  return () => connectionsApiChannel.unsubscribe(subscribers);
}
