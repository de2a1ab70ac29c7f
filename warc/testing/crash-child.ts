// A stand-in for a crawler task writing WARC files, for warc-crash.test.ts: writes the captures of
// offsets committed+1 … total-1 in order, flushes and commits every 7th offset, and reports progress
// over IPC so the parent can kill it at a chosen point. With PARTIAL it appends only a prefix of one
// capture's bytes (as a process dying inside write() leaves) and waits to be killed.
//   node crash-child.js <dir> <total> [half:<offset> | request:<offset>]
import { appendFile, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { WarcWriter } from '../warc-writer.js';
import { captureRecords } from '../records.js';
import { gzipMemberAt } from '../gzip-member.js';
import { captureFor, hasCapture } from './test-captures.js';

const [dir, totalArg, partialArg = ''] = process.argv.slice(2);
const total = Number(totalArg);
const [partialMode, partialAt] = partialArg ? [partialArg.split(':')[0], Number(partialArg.split(':')[1])] : ['', -1];
const send = (m: object) => new Promise<void>((r) => process.send!(m, () => r()));
const source = { topic: 'fetched', partition: 0 };
const COMMITTED = join(dir, 'committed.json');

async function main(): Promise<void> {
  const committed: number = await readFile(COMMITTED, 'utf8').then((t) => JSON.parse(t) as number, () => -1);
  const w = await WarcWriter.open({
    dir, writerId: 'fetched-0', source, software: 'crawlstream-test', operator: 'ops@crawl.test', maxFileBytes: 48 * 1024,
  });
  await send({ type: 'opened', committed, lastSourceOffset: w.lastSourceOffset, cutBytes: w.recovery.cutBytes });
  for (let offset = committed + 1; offset < total; offset++) {
    if (hasCapture(offset)) {
      if (offset === partialAt && w.currentFile) {
        const { bytes } = await captureRecords(captureFor(offset), { ...source, offset }, '<urn:uuid:00000000-0000-0000-0000-000000000000>', 1 << 24);
        const requestEnd = gzipMemberAt(bytes, 0, 1 << 24)!.end;
        const cut = partialMode === 'request' ? requestEnd : Math.floor(bytes.length / 2);
        await appendFile(join(dir, w.currentFile), bytes.subarray(0, cut));
        await send({ type: 'partial', offset, bytes: cut });
        await new Promise(() => {}); // the parent kills us here
      }
      const r = await w.write(captureFor(offset), offset);
      await send({ type: 'wrote', offset, written: r.written });
    }
    if (offset % 7 === 6) {
      await w.flush();
      await writeFile(`${COMMITTED}.tmp`, JSON.stringify(offset));
      await rename(`${COMMITTED}.tmp`, COMMITTED);
    }
  }
  await w.close();
  await send({ type: 'done' });
}

main().catch(async (err) => {
  await send({ type: 'error', message: String(err?.stack ?? err) });
  process.exit(1);
});
