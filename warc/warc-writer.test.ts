import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm, readdir, readFile, stat, appendFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WarcWriter, type WarcWriterOptions } from './warc-writer.js';
import { CaptureError, payloadDigest, type WarcCapture } from './capture.js';
import { WarcDamagedError } from './recovery.js';
import { BASE_TIME, bodyFor, captureFor, noise } from './testing/test-captures.js';
import { header, listRecords, source, toolsOrSkip, warcFiles, warcioCheck, type ListedRecord } from './warc-reader.js';

const tools = toolsOrSkip();
const skip = 'skip' in tools ? tools.skip : false;
const py = () => tools as Exclude<typeof tools, { skip: string }>;

let root = '';
before(async () => {
  root = await mkdtemp(join(tmpdir(), 'warc-writer-'));
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

let n = 0;
async function freshDir(): Promise<string> {
  const dir = join(root, `d${n++}`);
  return dir;
}

function options(dir: string, extra: Partial<WarcWriterOptions> = {}): WarcWriterOptions {
  return { dir, writerId: 'fetched-0', source: { topic: 'fetched', partition: 0 }, software: 'crawlstream-test', operator: 'ops@crawl.test', ...extra };
}

async function writeAll(dir: string, offsets: number[], extra: Partial<WarcWriterOptions> = {}): Promise<WarcWriter> {
  const w = await WarcWriter.open(options(dir, extra));
  for (const o of offsets) await w.write(captureFor(o), o);
  await w.flush();
  return w;
}

function byType(records: ListedRecord[], type: string): ListedRecord[] {
  return records.filter((r) => r.type === type);
}

describe('WarcWriter', () => {
  it('should write WARC/1.1 request and response records that Python warcio reads and whose digests verify', { skip }, async () => {
    const dir = await freshDir();
    const w = await writeAll(dir, [0, 1, 3, 5]);
    await w.close();
    const files = warcFiles(dir);
    assert.equal(files.length, 1);
    const check = await warcioCheck(py(), files);
    assert.ok(check.ok, check.output);
    const records = await listRecords(py(), files);
    assert.deepEqual(records.map((r) => r.type), ['warcinfo', 'request', 'response', 'request', 'response', 'request', 'response', 'request', 'revisit']);
    assert.ok(records.every((r) => r.version === 'WARC/1.1'));

    const info = records[0];
    assert.match(info.payload_text, /software: crawlstream-test/);
    assert.match(info.payload_text, /operator: ops@crawl\.test/);
    assert.equal(header(info, 'WARC-Filename'), files[0].split('/').pop());

    for (let i = 1; i < records.length; i += 2) {
      const [req, resp] = [records[i], records[i + 1]];
      const offset = source(resp)!.offset;
      const c = captureFor(offset);
      assert.equal(source(req)!.offset, offset, 'request and response name the same source offset');
      assert.equal(header(resp, 'WARC-Concurrent-To'), header(req, 'WARC-Record-ID'));
      assert.equal(header(resp, 'WARC-Warcinfo-ID'), header(info, 'WARC-Record-ID'));
      for (const r of [req, resp]) {
        assert.equal(header(r, 'WARC-Target-URI'), c.targetUri);
        assert.equal(header(r, 'WARC-Date'), new Date(c.fetchedAt).toISOString());
        assert.equal(header(r, 'WARC-IP-Address'), '127.0.0.1');
        assert.match(header(r, 'WARC-Block-Digest') ?? '', /^sha1:[A-Z2-7]{32}$/);
      }
      // Python warcio splits a request line after its first token (the method).
      assert.equal(`${req.http!.protocol} ${req.http!.statusline}`, `GET ${c.request.path} HTTP/1.1`);
      assert.deepEqual(req.http!.headers[0], ['Host', new URL(c.targetUri).host], 'Host leads the request as sent on the wire');
    }

    const [r0] = byType(records, 'response');
    assert.equal(r0.http!.statusline, '200 OK');
    assert.equal(r0.payload_sha1, payloadDigest(bodyFor(0)), 'the stored payload is the decoded body');
    assert.equal(header(r0, 'WARC-Payload-Digest'), r0.payload_sha1);
    const names = r0.http!.headers.map(([k]) => k);
    assert.ok(names.includes('X-Crawler-Content-Encoding') && names.includes('X-Crawler-Content-Length'), `wire headers renamed: ${names}`);
    assert.ok(!names.includes('Content-Encoding'), 'no Content-Encoding left for a reader to undo');
    assert.deepEqual(r0.http!.headers.filter(([k]) => k === 'Content-Length'), [['Content-Length', String(bodyFor(0).length)]]);
    assert.deepEqual(r0.http!.headers.filter(([k]) => k === 'Set-Cookie').map(([, v]) => v), ['a=1', 'b=2']);

    const truncated = byType(records, 'response').find((r) => source(r)!.offset === 3)!;
    assert.equal(header(truncated, 'WARC-Truncated'), 'length');
    assert.equal(header(r0, 'WARC-Truncated'), undefined);

    const [rv] = byType(records, 'revisit');
    const c5 = captureFor(5);
    assert.equal(header(rv, 'WARC-Profile'), 'http://netpreserve.org/warc/1.1/revisit/server-not-modified');
    assert.equal(header(rv, 'WARC-Refers-To-Target-URI'), c5.targetUri);
    assert.equal(header(rv, 'WARC-Refers-To-Date'), new Date(c5.revisit!.refersToDate as number).toISOString());
    assert.equal(header(rv, 'WARC-Payload-Digest'), c5.revisit!.payloadDigest);
    assert.equal(rv.http!.statusline, '304 Not Modified');
    assert.equal(rv.payload_length, 0);
  });

  it('should return the payload digest it wrote and skip offsets at or below the last one', async () => {
    const dir = await freshDir();
    const w = await WarcWriter.open(options(dir));
    assert.equal(w.lastSourceOffset, -1);
    const r = await w.write(captureFor(0), 10);
    assert.deepEqual({ written: r.written, type: r.type, digest: r.payloadDigest }, { written: true, type: 'response', digest: payloadDigest(bodyFor(0)) });
    assert.equal((await w.write(captureFor(1), 10)).written, false);
    assert.equal((await w.write(captureFor(1), 9)).written, false);
    assert.equal(w.lastSourceOffset, 10);
    assert.equal(w.stats.skipped, 2);
    await w.close();
  });

  it('should rotate files before they pass maxFileBytes, each opening with its own warcinfo, names in write order', { skip }, async () => {
    const dir = await freshDir();
    const offsets = Array.from({ length: 30 }, (_, i) => i);
    let t = BASE_TIME;
    const w = await writeAll(dir, offsets, { maxFileBytes: 4096, now: () => t++ });
    await w.close();
    const files = warcFiles(dir);
    assert.ok(files.length >= 5, `expected several files, got ${files.length}`);
    const all = await listRecords(py(), files);
    for (const f of files) {
      assert.match(f, /crawlstream-fetched-0-\d{17}-\d{5}\.warc\.gz$/);
      const size = (await stat(f)).size;
      const records = all.filter((r) => r.file === f);
      assert.equal(records[0].type, 'warcinfo', `${f} opens with warcinfo`);
      // A capture bigger than the bound on its own (the 64 KiB noise bodies) gets a file of its own.
      assert.ok(size <= 4096 || records.length === 3, `${f}: ${size} bytes with ${records.length} records`);
    }
    assert.deepEqual(byType(all, 'request').map((r) => source(r)!.offset), offsets, 'every capture once, in order across files');
    assert.ok((await warcioCheck(py(), files)).ok);
  });

  it('should cut a partly written capture at any byte and resume after the last whole one', { skip }, async () => {
    const base = await freshDir();
    const w = await writeAll(base, [0, 1, 2]);
    const [file] = warcFiles(base);
    const whole = (await stat(file)).size;
    await w.write(captureFor(3), 3);
    await w.close();
    const full = (await stat(file)).size;
    const bytes = await readFile(file);
    const name = file.split('/').pop()!;
    // Every cut point, including the one that leaves a whole request without its response.
    const cuts = Array.from({ length: full - whole + 1 }, (_, i) => whole + i);
    for (const cut of cuts) {
      const dir = join(base, `cut${cut}`);
      await mkdir(dir);
      await writeFile(join(dir, name), bytes.subarray(0, cut));
      const r = await WarcWriter.open(options(dir));
      const expectOffset = cut === full ? 3 : 2;
      assert.equal(r.lastSourceOffset, expectOffset, `cut at ${cut}`);
      assert.equal(r.recovery.cutBytes, cut === full ? 0 : cut - whole, `cut at ${cut}`);
      assert.equal((await stat(join(dir, name))).size, cut === full ? full : whole);
      await r.close();
    }
    const check = await warcioCheck(py(), warcFiles(join(base, `cut${cuts[Math.floor(cuts.length / 2)]}`)));
    assert.ok(check.ok, check.output);
  });

  it('should remove a file that holds no whole record and take the last offset from the file before', { skip }, async () => {
    const dir = await freshDir();
    let t = BASE_TIME;
    const w = await writeAll(dir, [0, 1, 2, 3], { maxFileBytes: 1500, now: () => t++ });
    await w.close();
    const files = warcFiles(dir);
    assert.ok(files.length >= 2);
    // A crash while writing a new file's warcinfo leaves a few bytes of it.
    const next = files[files.length - 1].replace(/-(\d{5})\.warc\.gz$/, (_, s) => `-${String(Number(s) + 1).padStart(5, '0')}.warc.gz`);
    await writeFile(next, Buffer.from([0x1f, 0x8b, 0x08, 0, 0]));
    const r = await WarcWriter.open(options(dir));
    assert.equal(r.lastSourceOffset, 3);
    assert.deepEqual(r.recovery.removedFiles, [next.split('/').pop()]);
    await r.write(captureFor(4), 4);
    await r.close();
    const after = warcFiles(dir);
    assert.ok(!after.includes(next) && after.length === files.length + 1, 'continues in a new file with a higher seq');
    assert.ok((await warcioCheck(py(), after)).ok);
  });

  it('should refuse to cut a file whose damage is more than a partly written tail', async () => {
    const dir = await freshDir();
    const w = await writeAll(dir, [1, 2], { maxBodyBytes: 2000 });
    await w.close();
    const [file] = warcFiles(dir);
    await appendFile(file, noise(1, 300 * 1024));
    const size = (await stat(file)).size;
    await assert.rejects(WarcWriter.open(options(dir, { maxBodyBytes: 2000 })), (e: Error) => e instanceof WarcDamagedError && /Move the file aside/.test(e.message));
    assert.equal((await stat(file)).size, size, 'nothing cut');
  });

  it('should refuse a bad capture with a CaptureError, write nothing for it, and stay usable', { skip }, async () => {
    const dir = await freshDir();
    const w = await WarcWriter.open(options(dir, { maxBodyBytes: 1000 }));
    const good = captureFor(1);
    const bad: [string, WarcCapture][] = [
      ['empty URI', { ...good, targetUri: '' }],
      ['bad date', { ...good, fetchedAt: Number.NaN }],
      ['bad status', { ...good, response: { ...good.response, status: 42 } }],
      ['bad version', { ...good, request: { ...good.request, httpVersion: 'HTTP/x' } }],
      ['body over maxBodyBytes', { ...good, body: Buffer.alloc(1001) }],
      ['headers too big', { ...good, response: { ...good.response, headers: Array.from({ length: 100 }, (_, i) => [`x-${i}`, 'v'.repeat(400)] as [string, string]) } }],
    ];
    for (const [what, c] of bad) await assert.rejects(w.write(c, 1), CaptureError, what);
    assert.equal(w.lastSourceOffset, -1);
    const forged = {
      ...good,
      response: {
        ...good.response,
        headers: [['X-Evil', 'a\r\nX-Injected: 1'], ['Bad Name', 'v'], ['WARC-Dup', '1'], ['WARC-Dup', '2'], ['X-Commas', 'a,,,X-Split: 1']] as [string, string][],
      },
    };
    assert.equal((await w.write(forged, 1)).written, true);
    assert.equal(w.stats.headersCleaned, 4);
    await w.close();
    const records = await listRecords(py(), warcFiles(dir));
    const resp = byType(records, 'response')[0];
    const names = resp.http!.headers.map(([k]) => k);
    assert.ok(!names.includes('X-Injected') && !names.includes('X-Split'), `no header forged: ${names}`);
    assert.ok(names.includes('Bad_Name'));
    assert.deepEqual(resp.http!.headers.filter(([k]) => k === 'WARC-Dup'), [['WARC-Dup', '1, 2']]);
    assert.deepEqual(resp.http!.headers.filter(([k]) => k === 'X-Commas'), [['X-Commas', 'a, , ,X-Split: 1']], 'one line, not split at ",,,"');
  });

  it('should keep writers of different ids apart in one directory and refuse an id holding another partition', async () => {
    const dir = await freshDir();
    const a = await writeAll(dir, [0, 1], { writerId: 'fetched-0' });
    const b = await writeAll(dir, [7], { writerId: 'fetched-1', source: { topic: 'fetched', partition: 1 } });
    await a.close();
    await b.close();
    assert.equal((await readdir(dir)).length, 2);
    assert.equal((await WarcWriter.open(options(dir, { writerId: 'fetched-1', source: { topic: 'fetched', partition: 1 } }))).lastSourceOffset, 7);
    assert.equal((await WarcWriter.open(options(dir))).lastSourceOffset, 1);
    await assert.rejects(WarcWriter.open(options(dir, { writerId: 'fetched-1' })), WarcDamagedError);
  });
});
