// Exactly once across crashes: a child process writing captures is killed (SIGKILL) at points it
// reports, including inside a capture, then restarted from its last committed position; at the end
// every capture is in the files once, in order, and the files verify.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { payloadDigest } from './capture.js';
import { bodyFor, hasCapture } from './testing/test-captures.js';
import { header, listRecords, source, toolsOrSkip, warcFiles, warcioCheck } from './warc-reader.js';

const tools = toolsOrSkip();
const skip = 'skip' in tools ? tools.skip : false;
const CHILD = fileURLToPath(new URL('./testing/crash-child.js', import.meta.url));
const TOTAL = 90;

interface Message { type: string; offset?: number; written?: boolean; committed?: number; lastSourceOffset?: number; cutBytes?: number; message?: string }

/** Runs the child until `killWhen` says so (then SIGKILL) or it finishes; returns what it reported. */
function runChild(dir: string, total: number, args: string[], killWhen: (m: Message) => boolean): Promise<{ messages: Message[]; killed: boolean }> {
  return new Promise((resolve, reject) => {
    const messages: Message[] = [];
    let killed = false;
    const child: ChildProcess = fork(CHILD, [dir, String(total), ...args], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child.on('message', (m: Message) => {
      messages.push(m);
      if (m.type === 'error') reject(new Error(`child failed: ${m.message}`));
      if (!killed && killWhen(m)) {
        killed = true;
        child.kill('SIGKILL');
      }
    });
    child.on('error', reject);
    child.on('exit', () => resolve({ messages, killed }));
  });
}

let dir = '';
after(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('WarcWriter across crashes', () => {
  it('should hold every capture exactly once after kills during writes, inside a capture and after a bare request', { skip }, async () => {
    dir = await mkdtemp(join(tmpdir(), 'warc-crash-'));
    // 1: killed as soon as it reports offset 20 written, while it goes on writing the next ones (it
    // stops at 29 however slow the kill is, so later rounds start from a known commit: 20 or 27).
    const r1 = await runChild(dir, 30, [], (m) => m.type === 'wrote' && m.offset! >= 20);
    assert.ok(r1.killed || r1.messages.some((m) => m.type === 'done'), 'round 1 was killed or finished');
    // 2: dies having written half of capture 40.
    const r2 = await runChild(dir, TOTAL, ['half:40'], (m) => m.type === 'partial');
    assert.ok(r2.killed && r2.messages.some((m) => m.type === 'partial'), 'round 2 died inside capture 40');
    // 3: dies having written capture 47's request but not its response.
    const r3 = await runChild(dir, TOTAL, ['request:47'], (m) => m.type === 'partial');
    assert.ok(r3.killed && r3.messages.some((m) => m.type === 'partial'), 'round 3 died after a bare request');
    const opened3 = r3.messages.find((m) => m.type === 'opened')!;
    assert.ok(opened3.cutBytes! > 0, 'round 3 cut the half capture left by round 2');
    assert.equal(opened3.lastSourceOffset, 38, 'the last whole capture before 40 (39 has none)');
    assert.equal(opened3.committed, 34, 'committed lags what is on disk');
    assert.deepEqual(
      r3.messages.filter((m) => m.type === 'wrote' && !m.written).map((m) => m.offset),
      [35, 36, 37, 38],
      'captures on disk but not committed are skipped, not written twice',
    );
    // 4: runs to the end.
    const r4 = await runChild(dir, TOTAL, [], () => false);
    assert.ok(!r4.killed && r4.messages.some((m) => m.type === 'done'), 'round 4 finished');
    const opened4 = r4.messages.find((m) => m.type === 'opened')!;
    assert.ok(opened4.cutBytes! > 0, 'round 4 cut the bare request left by round 3');
    assert.equal(opened4.lastSourceOffset, 46);

    const t = tools as Exclude<typeof tools, { skip: string }>;
    const files = warcFiles(dir);
    const check = await warcioCheck(t, files);
    assert.ok(check.ok, check.output);
    const records = (await listRecords(t, files)).filter((r) => r.type !== 'warcinfo');
    const expected = Array.from({ length: TOTAL }, (_, i) => i).filter(hasCapture);
    const requests = records.filter((r) => r.type === 'request');
    const responses = records.filter((r) => r.type !== 'request');
    assert.deepEqual(responses.map((r) => source(r)!.offset), expected, 'every capture once, none twice, in order');
    assert.deepEqual(requests.map((r) => source(r)!.offset), expected);
    for (let i = 0; i < records.length; i += 2) {
      const [req, resp] = [records[i], records[i + 1]];
      assert.equal(req.type, 'request');
      assert.equal(header(resp, 'WARC-Concurrent-To'), header(req, 'WARC-Record-ID'), `pair at offset ${source(req)!.offset}`);
      if (resp.type === 'response') assert.equal(resp.payload_sha1, payloadDigest(bodyFor(source(resp)!.offset)));
    }
  });
});
