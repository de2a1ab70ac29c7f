import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeFrames, FRAME_HEADER, frameHead, frameIntact, frameOffset, frameRecord, framesLength, payloadLength } from './frame.js';

test('a frame gives back its offset and commit round past 2^32, its timestamp, key and value', () => {
  // Offsets and rounds are 48-bit fields read in two halves: a long-lived log passes 2^32.
  const records = [
    { key: 'hôst-a', value: Buffer.from('first'), timestamp: 1_700_000_000_123.5 },
    { key: '', value: Buffer.alloc(0), timestamp: 0 },
  ];
  const keyBytes = records.map((r) => Buffer.byteLength(r.key));
  const buffer = Buffer.alloc(framesLength(records, keyBytes));
  const first = 2 ** 40 + 2 ** 32 - 1;
  const round = 2 ** 47 + 3;
  const starts = encodeFrames(buffer, records, keyBytes, first, round);
  records.forEach((r, i) => {
    const at = starts[i];
    const length = payloadLength(buffer, at);
    assert.ok(length > 0 && frameIntact(buffer, at, length));
    assert.equal(at + FRAME_HEADER + length, starts[i + 1] ?? buffer.length);
    assert.equal(frameOffset(buffer, at), first + i);
    assert.deepEqual(frameHead(buffer, at), { offset: first + i, round, timestamp: r.timestamp });
    const decoded = frameRecord(buffer, at, length, 'topic', 3);
    assert.deepEqual({ ...decoded, value: decoded.value.toString() }, { topic: 'topic', partition: 3, offset: first + i, timestamp: r.timestamp, key: r.key, value: r.value.toString() });
  });
});
