// Group offsets inside a transaction, asked again while the broker answers with an error that passes:
// CONCURRENT_TRANSACTIONS (the producer's previous transaction is still being completed), a group
// coordinator still loading or moved, or partitions the coordinator does not know yet (just after
// topics grew). The requests go through kafkajs's cluster (engine/kafka/txn-producer.ts), which
// gives up at once; kafkajs's own producer retried the last three and the Java client retries them
// all. Given up, the whole transaction failed (seen in a two-worker crawl on Kafka 4.4): every task of
// the worker re-opened from its last commit and redid its fetches in flight.
import type { GroupOffsetsInTxn, OpenTransaction } from './txn-producer.js';

type Offsets = GroupOffsetsInTxn;

/** How long a transaction keeps asking before it fails: the broker's markers take milliseconds. */
const GIVE_UP_MS = 10_000;
const FIRST_WAIT_MS = 20;
const MAX_WAIT_MS = 500;

/**
 * Broker errors that pass, by their protocol code: clients name them differently (kafkajs says
 * GROUP_COORDINATOR_NOT_AVAILABLE where the protocol says COORDINATOR_NOT_AVAILABLE), and a set of
 * names matched only the ones spelled alike, so a coordinator that moved failed the whole transaction.
 * sendOffsets looks the coordinators up again on every attempt.
 */
const PASSING_CODES = new Set([
  3, // UNKNOWN_TOPIC_OR_PARTITION
  14, // COORDINATOR_LOAD_IN_PROGRESS
  15, // COORDINATOR_NOT_AVAILABLE
  16, // NOT_COORDINATOR
  51, // CONCURRENT_TRANSACTIONS
]);

const passing = (err: unknown) => PASSING_CODES.has((err as { code?: number }).code ?? -1);

/** `transaction.sendOffsets(offsets)`, asked again while the broker answers an error that passes. */
export async function sendOffsetsInTransaction(transaction: Pick<OpenTransaction, 'sendOffsets'>, offsets: Offsets, giveUpMs = GIVE_UP_MS): Promise<number> {
  const started = performance.now();
  for (let attempt = 0; ; attempt++) {
    try {
      await transaction.sendOffsets(offsets);
      return attempt;
    } catch (err) {
      if (!passing(err) || performance.now() - started >= giveUpMs) throw err;
      await new Promise((r) => setTimeout(r, Math.min(FIRST_WAIT_MS * 2 ** attempt, MAX_WAIT_MS)));
    }
  }
}
