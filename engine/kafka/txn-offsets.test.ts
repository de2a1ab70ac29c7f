import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import kafkajs from 'kafkajs';
import { sendOffsetsInTransaction } from './txn-offsets.js';

const offsets = { consumerGroupId: 'g', topics: [{ topic: 't', partitions: [{ partition: 5, offset: '9' }] }] };
// The errors exactly as kafkajs throws them for a broker's error code (its names are not the protocol's).
const { createErrorFromCode } = createRequire(import.meta.url)('kafkajs/src/protocol/error.js') as { createErrorFromCode: (code: number) => Error & { type: string; code: number; retriable: boolean } };
const brokerError = (code: number) => new kafkajs.KafkaJSProtocolError(createErrorFromCode(code));
const CODES = { UNKNOWN_TOPIC_OR_PARTITION: 3, COORDINATOR_LOAD_IN_PROGRESS: 14, COORDINATOR_NOT_AVAILABLE: 15, NOT_COORDINATOR: 16, CONCURRENT_TRANSACTIONS: 51, INVALID_PRODUCER_EPOCH: 47 };

describe('group offsets in a transaction', () => {
  for (const name of ['UNKNOWN_TOPIC_OR_PARTITION', 'COORDINATOR_LOAD_IN_PROGRESS', 'COORDINATOR_NOT_AVAILABLE', 'NOT_COORDINATOR', 'CONCURRENT_TRANSACTIONS'] as const) {
    it(`should ask again on ${name} (code ${CODES[name]}), whatever the client calls it`, async () => {
      // A live scale-out once failed its worker's transaction on kafkajs's GROUP_COORDINATOR_NOT_AVAILABLE.
      let calls = 0;
      const again = await sendOffsetsInTransaction({
        sendOffsets: async () => {
          if (++calls < 3) throw brokerError(CODES[name]);
        },
      }, offsets);
      assert.equal(again, 2);
    });
  }

  it('should give up at once on an error that does not pass, such as a fence', async () => {
    let calls = 0;
    await assert.rejects(sendOffsetsInTransaction({
      sendOffsets: async () => {
        calls++;
        throw brokerError(CODES.INVALID_PRODUCER_EPOCH);
      },
    }, offsets), /old epoch/);
    assert.equal(calls, 1);
  });

  it('should give up after its bound', async () => {
    await assert.rejects(sendOffsetsInTransaction({ sendOffsets: async () => { throw brokerError(CODES.CONCURRENT_TRANSACTIONS); } }, offsets, 50), (err: { code?: number }) => err.code === CODES.CONCURRENT_TRANSACTIONS);
  });
});
