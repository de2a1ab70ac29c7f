// --warc-dir on a full disk (a small tmpfs, filled up): a SIGTERM ends the crawl within --stop-grace
// with exit 5, naming the captures not archived and the disk's own error; once space is freed, the
// same command archives every response exactly once, in one file per writer and run (a retry begins
// no file of its own), and its summary counts them all.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSyntheticWeb, type SyntheticWeb } from '../test-web/synthetic-web.js';
import { toolsOrSkip, warcioCheck } from '../warc/warc-reader.js';
import type { PythonTools } from '../warc/python-tools.js';
import { runCli, type CliRun } from './support/cli.js';
import { archived, readCaptures, serverResponses, differences, sourcesTwice, tally } from './support/warc-captures.js';

const tools = toolsOrSkip();
const root = mkdtempSync(join(tmpdir(), 'warc-full-'));
const disk = join(root, 'disk');
/** Free bytes left once the filler is written: a few captures fit, then the disk is full. */
const LEFT_FREE = 24 * 1024;

/** A 1 MiB tmpfs of our own, or why there cannot be one (mounting needs root). */
function mountSmallDisk(): string | undefined {
  mkdirSync(disk);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', disk], { stdio: 'pipe' });
    return undefined;
  } catch (err) {
    return `cannot mount a tmpfs here (${(err as Error).message.split('\n')[0]}): run as root to test a full disk`;
  }
}

const skip = 'skip' in tools ? tools.skip : mountSmallDisk() ?? false;
const py = () => tools as PythonTools;

describe('WARC files on a full disk', { skip }, () => {
  let web: SyntheticWeb;
  let args: string[];
  let stopped: CliRun;
  let resumed: CliRun;
  const warcDir = join(disk, 'warc');

  before(async () => {
    web = await startSyntheticWeb({ scenario: 'bench', bench: { hosts: 2, pagesPerHost: 12 } });
    mkdirSync(warcDir);
    const { bavail, bsize } = statfsSync(disk);
    writeFileSync(join(disk, 'filler'), Buffer.alloc(bavail * bsize - LEFT_FREE));
    const dataDir = join(root, 'data');
    args = ['crawl', ...web.seeds, '--data-dir', dataDir, '--allow-network', '127.0.0.0/8', '--default-delay-ms', '10', '--partitions', '2', '--quiet',
      '--warc-dir', warcDir, '--stop-grace', '2s'];
    stopped = await runCli(args, { interrupt: { signal: 'SIGTERM', afterMs: 0, when: /warc: writing failed \(ENOSPC.*attempt 3\)/ }, timeoutMs: 120_000 });
    rmSync(join(disk, 'filler')); // space again
    resumed = await runCli(args, { timeoutMs: 120_000 });
  });
  after(async () => {
    await web?.close();
    execFileSync('umount', [disk]);
    rmSync(root, { recursive: true, force: true });
  });

  it('should end within --stop-grace while the disk is full, naming the captures not archived and the disk\'s error', () => {
    assert.equal(stopped.signal, null, 'it ended by itself');
    assert.equal(stopped.code, 5, stopped.stderr);
    const [line, summary] = stopped.stdout.trimEnd().split('\n').slice(-2);
    assert.match(summary, /^stopped after \d+ pages/);
    assert.match(line, new RegExp(`^ {2}not archived: \\d+ records? of fetched pages have no WARC capture in ${warcDir} yet: writing WARC files failed: ENOSPC: no space left on device`));
  });

  it('should archive every response exactly once after the disk is freed, in one file per writer, and count them all', async () => {
    assert.equal(resumed.code, 0, resumed.stderr);
    const captures = await readCaptures(py(), warcDir);
    assert.deepEqual(differences(serverResponses(web.requests), archived(captures)), [], 'server responses → WARC records');
    assert.deepEqual(sourcesTwice(captures), []);
    // A writer begins a file when it opens (once per run), never per retry: the first run retried
    // at least three times before it was stopped.
    const files = readdirSync(warcDir).filter((n) => n.endsWith('.warc.gz'));
    const perWriter = tally(files.map((n) => n.replace(/-\d{17}-\d+\.warc\.gz$/, '')));
    assert.ok([...perWriter.values()].every((n) => n <= 2), `one file per writer and run, not one per retry: ${files.join(', ')}`);
    assert.ok((await warcioCheck(py(), files.map((n) => join(warcDir, n)))).ok);
    const responses = captures.filter((c) => c.type === 'response').length;
    assert.equal(responses, web.requests.length);
    assert.match(resumed.stdout, new RegExp(`^WARC files in ${warcDir}: ${responses} responses, 0 revisits;`, 'm'), 'the summary counts every capture, across both runs');
  });
});
