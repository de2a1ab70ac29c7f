// Group offsets inside a transaction, asked again while the broker answers CONCURRENT_TRANSACTIONS
// (the producer's previous transaction is still being completed). kafkajs 2.2.4 retries that answer
// for produce requests but not for AddOffsetsToTxn or TxnOffsetCommit, where it gives up at once; the
// Java client retries it everywhere. Given up, it failed the whole transaction (seen in a two-worker
// crawl on Kafka 4.4): every task of the worker re-opened from its last commit.
import type { Transaction } from 'kafkajs';

type Offsets = Parameters<Transaction['sendOffsets']>[0];

/** How long a transaction keeps asking before it fails: the broker's markers take milliseconds. */
const GIVE_UP_MS = 10_000;
const FIRST_WAIT_MS = 20;
const MAX_WAIT_MS = 500;

const concurrent = (err: unknown) => (err as { type?: string }).type === 'CONCURRENT_TRANSACTIONS';

/** `transaction.sendOffsets(offsets)`, asked again while the broker answers CONCURRENT_TRANSACTIONS. */
export async function sendOffsetsInTransaction(transaction: Pick<Transaction, 'sendOffsets'>, offsets: Offsets, giveUpMs = GIVE_UP_MS): Promise<number> {
  const started = performance.now();
  for (let attempt = 0; ; attempt++) {
    try {
      await transaction.sendOffsets(offsets);
      return attempt;
    } catch (err) {
      if (!concurrent(err) || performance.now() - started >= giveUpMs) throw err;
      await new Promise((r) => setTimeout(r, Math.min(FIRST_WAIT_MS * 2 ** attempt, MAX_WAIT_MS)));
    }
  }
}
