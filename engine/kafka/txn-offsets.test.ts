import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sendOffsetsInTransaction } from './txn-offsets.js';

const offsets = { consumerGroupId: 'g', topics: [{ topic: 't', partitions: [{ partition: 5, offset: '9' }] }] };
const brokerError = (type: string) => Object.assign(new Error(type), { type });

describe('group offsets in a transaction', () => {
  it('should ask again while the coordinator does not know the partitions yet (just after topics grew)', async () => {
    let calls = 0;
    const again = await sendOffsetsInTransaction({
      sendOffsets: async () => {
        if (++calls < 3) throw brokerError('UNKNOWN_TOPIC_OR_PARTITION');
      },
    }, offsets);
    assert.equal(again, 2);
  });

  it('should give up at once on an error that does not pass, such as a fence', async () => {
    let calls = 0;
    await assert.rejects(sendOffsetsInTransaction({
      sendOffsets: async () => {
        calls++;
        throw brokerError('PRODUCER_FENCED');
      },
    }, offsets), /PRODUCER_FENCED/);
    assert.equal(calls, 1);
  });

  it('should give up after its bound', async () => {
    await assert.rejects(sendOffsetsInTransaction({ sendOffsets: async () => { throw brokerError('CONCURRENT_TRANSACTIONS'); } }, offsets, 50), /CONCURRENT_TRANSACTIONS/);
  });
});
