import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, statSync, truncateSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { PartitionLog, type LogEnd } from './partition-log.js';

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);
const rec = (i: number) => ({ key: `host-${i % 3}`, value: Buffer.from(`value-${i}`), timestamp: 1_000 + i });

function fresh(): { dir: string; log: PartitionLog } {
  const dir = mkdtempSync(join(tmpdir(), 'plog-'));
  const log = new PartitionLog(dir, 't', 0);
  log.open(undefined);
  return { dir, log };
}

describe('PartitionLog', () => {
  it('should hide appended records until their commit is published', () => {
    const { log } = fresh();
    const { end, written } = log.append([rec(0), rec(1)]);
    assert.equal(log.read(0, 10).length, 0);
    log.publish(end, written);
    assert.deepEqual(log.read(0, 10).map((r) => r.value.toString()), ['value-0', 'value-1']);
    assert.equal(log.end, 2);
    log.close();
  });

  it('should read from its in-memory tail at most maxBytes, and always at least one record', () => {
    const { log } = fresh();
    const { end, written } = log.append([0, 1, 2, 3].map((i) => ({ key: 'k', value: Buffer.alloc(100, i), timestamp: 1_000 + i })));
    log.publish(end, written);
    assert.deepEqual(log.read(0, 10, 250).map((r) => r.offset), [0, 1], 'a task\'s read-ahead is bounded in bytes');
    assert.deepEqual(log.read(2, 10, 1).map((r) => r.offset), [2], 'a record larger than the room is still read alone');
    assert.equal(log.read(0, 10).length, 4);
    log.close();
  });

  it('should cut off what was appended after the last commit when reopened (a kill -9 between append and commit)', () => {
    const { dir, log } = fresh();
    const first = log.append([rec(0), rec(1)]);
    log.publish(first.end, first.written);
    log.append([rec(2), rec(3)]); // never committed
    log.close();
    const again = new PartitionLog(dir, 't', 0);
    again.open(first.end);
    assert.equal(again.end, 2);
    assert.deepEqual(again.read(0, 10).map((r) => r.offset), [0, 1]);
    const next = again.append([rec(9)]);
    assert.equal(next.written[0].offset, 2, 'offsets continue from the committed end');
    again.close();
  });

  it('should read back from disk what is no longer in the in-memory tail, with keys and timestamps intact', () => {
    const { dir, log } = fresh();
    const big = Buffer.alloc(200 * 1024, 7);
    let last;
    for (let i = 0; i < 40; i++) {
      last = log.append([{ key: `k${i}`, value: big, timestamp: 5_000 + i }]);
      log.publish(last.end, last.written);
    }
    log.close();
    const again = new PartitionLog(dir, 't', 0);
    again.open(last!.end);
    const records = again.read(3, 5);
    assert.deepEqual(records.map((r) => r.offset), [3, 4, 5, 6, 7]);
    assert.equal(records[0].key, 'k3');
    assert.equal(records[0].timestamp, 5_003);
    assert.equal(records[0].value.length, big.length);
    assert.equal(again.offsetForTime(5_020), 20);
    again.close();
  });

  it('should not let a small read from disk keep a whole read chunk alive through its records', () => {
    const { log } = fresh();
    log.setReaders(false); // no in-memory tail: every read goes to the disk
    const { end, written } = log.append(Array.from({ length: 4_000 }, (_, i) => ({ key: 'k', value: Buffer.alloc(100, i), timestamp: 1_000 + i })));
    log.publish(end, written);
    const records = log.read(1_000, 512, 1_000);
    assert.ok(records.length >= 5 && records.length <= 10, `${records.length} records of ~100 bytes in a 1,000-byte read`);
    assert.deepEqual(records.map((r) => r.offset), [...range(1_000, 1_000 + records.length)]);
    assert.deepEqual(records[3].value, Buffer.alloc(100, 1_003));
    const held = new Set(records.map((r) => r.value.buffer));
    const heldBytes = [...held].reduce((sum, b) => sum + b.byteLength, 0);
    assert.ok(heldBytes <= 2 * 1_000, `a task queuing 1,000 bytes of values holds ${heldBytes} bytes of buffers`);
    assert.equal(log.read(0, 4_000).length, 4_000, 'a large read is whole');
    log.close();
  });

  it('should drop a torn frame at the end of the last segment', () => {
    const { dir, log } = fresh();
    const first = log.append([rec(0), rec(1)]);
    log.publish(first.end, first.written);
    log.close();
    const segment = join(dir, readdirSync(dir)[0]);
    const size = statSync(segment).size;
    const fd = openSync(segment, 'r+');
    writeSync(fd, Buffer.from([0, 0, 0, 40, 1, 2, 3]), 0, 7, size); // a frame header with no body
    closeSync(fd);
    const again = new PartitionLog(dir, 't', 0);
    again.open({ ...first.end, position: size + 7 });
    assert.deepEqual(again.read(0, 10).map((r) => r.offset), [0, 1]);
    assert.equal(statSync(segment).size, size);
    again.close();
  });
});

// Damage found when a log is opened. Records of one key byte and a 10-byte value make 41-byte
// frames; with 200-byte segments each segment holds 5 of them (bases 0, 5, 10, ... 25), so every
// lost range can be stated exactly.
describe('PartitionLog damage', () => {
  const SEGMENT = 200;
  const FRAME = 41;
  const fixed = (i: number) => ({ key: 'k', value: Buffer.from(`value-${String(i).padStart(4, '0')}`), timestamp: 1_000 + i });

  function thirtyRecords(): { dir: string; end: LogEnd } {
    const dir = mkdtempSync(join(tmpdir(), 'plog-damage-'));
    const log = new PartitionLog(dir, 't', 0, { segmentBytes: SEGMENT });
    log.open(undefined);
    let end: LogEnd | undefined;
    for (let i = 0; i < 30; i++) {
      const a = log.append([fixed(i)], i + 1);
      log.publish(a.end, a.written);
      end = a.end;
    }
    log.close();
    assert.equal(statSync(join(dir, segmentName(5))).size, 5 * FRAME, 'the layout the tests count on');
    return { dir, end: end! };
  }
  const segmentName = (base: number) => `${String(base).padStart(20, '0')}.log`;
  const reopen = (dir: string, end: LogEnd) => {
    const log = new PartitionLog(dir, 't', 0, { segmentBytes: SEGMENT });
    return { log, inspection: log.open(end) };
  };
  const offsets = (records: { offset: number }[]) => records.map((r) => r.offset);

  it('should report exactly which offsets a truncated middle segment lost, and read on after them', () => {
    const { dir, end } = thirtyRecords();
    truncateSync(join(dir, segmentName(5)), Math.floor((5 * FRAME) / 2)); // 2 whole frames and a torn one
    const { log, inspection } = reopen(dir, end);
    assert.deepEqual(inspection.lost.map(({ from, to }) => [from, to]), [[7, 10]]);
    assert.match(inspection.lost[0].cause, /00000000000000000005\.log has a frame at byte 82 that runs past byte 102/);
    assert.deepEqual(offsets(log.read(0, 100)), [...range(0, 7), ...range(10, 30)], 'a read passes over the lost range');
    assert.deepEqual(offsets(log.read(8, 3)), [10, 11, 12]);
    assert.deepEqual(log.lostAt(8), inspection.lost[0]);
    log.close();
  });

  it('should report the lost tail of a last segment cut short, leave it as found and write on in a new segment', () => {
    const { dir, end } = thirtyRecords();
    truncateSync(join(dir, segmentName(25)), 2 * FRAME);
    const { log, inspection } = reopen(dir, end);
    assert.deepEqual(inspection.lost.map(({ from, to }) => [from, to]), [[27, 30]]);
    assert.match(inspection.lost[0].cause, /is 82 bytes long where the state records 205 \(cut short\)/);
    const next = log.append([fixed(30)], 31);
    log.publish(next.end, next.written);
    assert.equal(next.written[0].offset, 30, 'offsets go on from the committed end');
    assert.equal(statSync(join(dir, segmentName(25))).size, 2 * FRAME, 'the damaged segment is left as it was found');
    assert.ok(existsSync(join(dir, segmentName(30))));
    log.close();
    const { log: again, inspection: later } = reopen(dir, next.end);
    assert.deepEqual(later.lost.map(({ from, to }) => [from, to]), [[27, 30]], 'the damage is reported again, nothing more');
    assert.deepEqual(offsets(again.read(25, 100)), [25, 26, 30]);
    assert.deepEqual(again.read(27, 100).map((r) => r.value.toString()), ['value-0030']);
    again.close();
  });

  it('should lose only the record whose frame is corrupt when the frames around it are intact', () => {
    const { dir, end } = thirtyRecords();
    const fd = openSync(join(dir, segmentName(10)), 'r+');
    writeSync(fd, Buffer.from('X'), 0, 1, 2 * FRAME + 35); // inside the value of offset 12
    closeSync(fd);
    const { log, inspection } = reopen(dir, end);
    assert.deepEqual(inspection.lost.map(({ from, to }) => [from, to]), [[12, 13]]);
    assert.match(inspection.lost[0].cause, /CRC mismatch\) at byte 82/);
    assert.deepEqual(offsets(log.read(10, 4)), [10, 11, 13, 14]);
    assert.deepEqual(log.read(13, 1)[0].value.toString(), 'value-0013');
    log.close();
  });

  it('should report a missing segment file, in the middle or at the end', () => {
    const { dir, end } = thirtyRecords();
    unlinkSync(join(dir, segmentName(5)));
    unlinkSync(join(dir, segmentName(25)));
    const { log, inspection } = reopen(dir, end);
    assert.deepEqual(inspection.lost.map(({ from, to }) => [from, to]), [[5, 10], [25, 30]]);
    assert.match(inspection.lost[0].cause, /ends at offset 4 where the next segment starts at 10/);
    assert.match(inspection.lost[1].cause, /00000000000000000025\.log is missing/);
    assert.deepEqual(offsets(log.read(0, 100)), [...range(0, 5), ...range(10, 25)]);
    assert.deepEqual(log.read(25, 100), [], 'nothing after the lost tail');
    log.close();
  });

  it('should find what lies past the committed end, and the newest commit round that wrote it, without changing a byte', () => {
    const { dir, end } = thirtyRecords();
    const log = new PartitionLog(dir, 't', 0, { segmentBytes: SEGMENT });
    log.open(end);
    log.append([fixed(30), fixed(31)], 31); // never committed
    for (let i = 32; i < 40; i++) log.append([fixed(i)], 33); // rolls into new segments
    log.close();
    const before = readdirSync(dir).map((f) => [f, statSync(join(dir, f)).size]);
    const inspecting = new PartitionLog(dir, 't', 0, { segmentBytes: SEGMENT });
    const { uncommitted, lost } = inspecting.inspect(end);
    assert.deepEqual([uncommitted.records, uncommitted.oldestRound, uncommitted.newestRound, lost.length], [10, 31, 33, 0]);
    inspecting.close();
    assert.deepEqual(readdirSync(dir).map((f) => [f, statSync(join(dir, f)).size]), before, 'inspecting changes nothing');
    const { log: opened } = reopen(dir, end);
    assert.equal(opened.end, 30);
    assert.equal(opened.append([fixed(30)], 31).written[0].offset, 30, 'open cut the uncommitted records off');
    opened.close();
  });

  it('should read the frames of a format-1 log (data directories from before commit rounds)', () => {
    // Format 1 as the earlier writer laid it out: [u32 length][u32 crc32(payload)] with payload
    // [u48 offset][f64 timestamp][u16 key length][key][value].
    const frames = ['alpha', 'beta'].map((v, offset) => {
      const key = Buffer.from(`key-${offset}`);
      const payload = Buffer.alloc(16 + key.length + v.length);
      payload.writeUIntBE(offset, 0, 6);
      payload.writeDoubleBE(5_000 + offset, 6);
      payload.writeUInt16BE(key.length, 14);
      key.copy(payload, 16);
      payload.write(v, 16 + key.length);
      const header = Buffer.alloc(8);
      header.writeUInt32BE(payload.length, 0);
      header.writeUInt32BE(crc32(payload), 4);
      return Buffer.concat([header, payload]);
    });
    const dir = mkdtempSync(join(tmpdir(), 'plog-v1-'));
    const file = Buffer.concat(frames);
    writeFileSync(join(dir, segmentName(0)), file);
    const log = new PartitionLog(dir, 't', 0);
    const { lost, uncommitted } = log.open({ end: 2, segment: 0, position: file.length });
    assert.deepEqual([lost.length, uncommitted.records], [0, 0]);
    const records = log.read(0, 10);
    assert.deepEqual(records.map((r) => [r.offset, r.key, r.value.toString(), r.timestamp]), [[0, 'key-0', 'alpha', 5_000], [1, 'key-1', 'beta', 5_001]]);
    const next = log.append([rec(2)], 1);
    assert.equal(next.written[0].offset, 2, 'new records follow in format 2');
    log.close();
  });
});
