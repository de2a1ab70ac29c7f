import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CaptureError } from './capture.js';
import { AppenderStoppedError, DurableAppender } from './durable-appender.js';
import { captureFor } from './testing/test-captures.js';
import { listRecords, source, toolsOrSkip, warcFiles, warcioCheck } from './warc-reader.js';
import { WarcWriter } from './warc-writer.js';

const tools = toolsOrSkip();
const skip = 'skip' in tools ? tools.skip : false;
const py = () => tools as Exclude<typeof tools, { skip: string }>;

let root = '';
let n = 0;
before(async () => {
  root = await mkdtemp(join(tmpdir(), 'warc-appender-'));
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

interface Gate {
  wait: Promise<void>;
  open(): void;
}
function gate(): Gate {
  let open!: () => void;
  const wait = new Promise<void>((r) => (open = r));
  return { wait, open };
}

/** Opens real writers; `patch` may replace methods of each new one (failures, gates). */
function harness(patch?: (w: WarcWriter, opened: number) => void) {
  const dir = join(root, `d${n++}`);
  const said: string[] = [];
  let opened = 0;
  const open = async () => {
    const w = await WarcWriter.open({ dir, writerId: 'fetched-0', source: { topic: 'fetched', partition: 0 }, software: 'test', operator: 'test' });
    patch?.(w, ++opened);
    return w;
  };
  const logger = { info: (m: string) => said.push(`info ${m}`), warn: (m: string) => said.push(`warn ${m}`) };
  return { dir, said, opened: () => opened, appender: () => DurableAppender.open({ open, logger, retryMs: { first: 5, max: 20 } }) };
}

const make = (offset: number) => async () => captureFor(offset);
/** Offsets whose test capture is a plain response (captureFor makes some revisits; all are capturable). */
const offsets = [0, 1, 2, 3, 5, 6, 7, 8];

async function offsetsOnDisk(dir: string): Promise<number[]> {
  const records = await listRecords(py(), warcFiles(dir));
  return records.filter((r) => r.type === 'response' || r.type === 'revisit').map((r) => source(r)!.offset);
}

describe('DurableAppender', () => {
  it('should resolve an append only once its capture is fsynced', async () => {
    const flushing = gate();
    const entered = gate();
    let flushed = false;
    const h = harness((w) => {
      const flush = w.flush.bind(w);
      w.flush = async () => {
        entered.open();
        await flushing.wait;
        await flush();
        flushed = true;
      };
    });
    const a = await h.appender();
    let resolved = false;
    const done = a.append(make(0), 0).then((r) => {
      resolved = true;
      assert.equal(flushed, true, 'resolved after the fsync returned');
      return r;
    });
    await entered.wait; // written, and the fsync has begun
    await new Promise((r) => setImmediate(r));
    assert.equal(resolved, false);
    flushing.open();
    assert.equal((await done).written, true);
    await a.close();
  });

  it('should write each capture exactly once across a failed fsync, going on in the same file', { skip }, async () => {
    const h = harness((w) => {
      const flush = w.flush.bind(w);
      let failed = false;
      w.flush = async () => {
        if (failed) return flush();
        failed = true;
        throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
      };
    });
    const a = await h.appender();
    const results = await Promise.all(offsets.map((o) => a.append(make(o), o)));
    await a.close();
    assert.equal(h.opened(), 1, 'the writer went on, it was not reopened');
    assert.equal(warcFiles(h.dir).length, 1, 'one file, one warcinfo: a retry begins no file of its own');
    assert.ok(results.every((r) => r.written === true), 'every capture counts as written by its own append');
    assert.ok(h.said.some((s) => /^warn warc: writing failed \(EIO.*none is lost: trying again/.test(s)), h.said.join('\n'));
    assert.ok(h.said.some((s) => /^info warc: writing works again after 1 failed attempt/.test(s)), h.said.join('\n'));
    assert.deepEqual(await offsetsOnDisk(h.dir), offsets);
    assert.ok((await warcioCheck(py(), warcFiles(h.dir))).ok);
  });

  it('should lose, double and miscount nothing when writes fail half-way through batches, again and again', { skip }, async () => {
    const h = harness((w) => {
      const write = w.write.bind(w);
      let calls = 0;
      // The 4th and 6th writes fail as on a full disk: retries find what they wrote on disk.
      w.write = (c, o) => ([4, 6].includes(++calls) ? Promise.reject(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })) : write(c, o));
    });
    const a = await h.appender();
    const results = await Promise.all(offsets.map((o) => a.append(make(o), o)));
    await a.close();
    assert.deepEqual(results.map((r) => r.written), offsets.map(() => true), 'each capture written once, and counted once');
    assert.deepEqual(await offsetsOnDisk(h.dir), offsets);
    assert.equal(warcFiles(h.dir).length, 1);
    assert.equal(h.said.filter((s) => s.startsWith('warn warc: writing failed (ENOSPC')).length, 2);
  });

  it('should begin a new file only when the current one cannot be taken up again', { skip }, async () => {
    const h = harness((w, opened) => {
      if (opened !== 1) return;
      w.flush = async () => {
        throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
      };
      w.resume = async () => {
        throw new Error('EIO: the file cannot be read back');
      };
    });
    const a = await h.appender();
    const results = await Promise.all(offsets.map((o) => a.append(make(o), o)));
    await a.close();
    assert.equal(h.opened(), 2);
    assert.ok(h.said.some((s) => /^warn warc: cannot go on in .*a new file is begun/.test(s)), h.said.join('\n'));
    assert.ok(results.every((r) => r.written === true || r.written === false));
    assert.deepEqual(await offsetsOnDisk(h.dir), offsets);
  });

  it('should reject only the append whose capture cannot be built', async () => {
    const h = harness();
    const a = await h.appender();
    const settled = await Promise.allSettled([
      a.append(make(0), 0),
      a.append(async () => {
        throw new CaptureError('broken record');
      }, 1),
      a.append(make(2), 2),
    ]);
    assert.deepEqual(settled.map((s) => s.status), ['fulfilled', 'rejected', 'fulfilled']);
    assert.ok((settled[1] as PromiseRejectedResult).reason instanceof CaptureError);
    await a.close();
  });

  it('should reject what waits when aborted, and take no more', async () => {
    const flushing = gate();
    const h = harness((w) => {
      const flush = w.flush.bind(w);
      w.flush = async () => {
        await flushing.wait;
        await flush();
      };
    });
    const a = await h.appender();
    const first = a.append(make(0), 0);
    await new Promise((r) => setImmediate(r)); // the first leaves the queue to be written
    assert.equal(a.pending, 0);
    const second = a.append(make(1), 1);
    a.abort();
    await assert.rejects(second, AppenderStoppedError);
    await assert.rejects(a.append(make(2), 2), AppenderStoppedError);
    flushing.open();
    assert.equal((await first).written, true, 'what was already being written completes');
    await a.close();
  });
});
