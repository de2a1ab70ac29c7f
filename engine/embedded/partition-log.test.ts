import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, openSync, writeSync, closeSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PartitionLog } from './partition-log.js';

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
