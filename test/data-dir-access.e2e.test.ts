// A data directory that cannot be written is refused with the real cause: a read-only disk is not
// "in use by another crawlstream process", and a directory that cannot be made is not "ENOENT".
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './support/cli.js';

const root = mkdtempSync(join(tmpdir(), 'data-dir-access-'));
const crawled = join(root, 'crawled');
const empty = join(root, 'empty');
const isRoot = process.getuid?.() === 0;
const lastLine = (stderr: string) => stderr.trimEnd().split('\n').at(-1)!;

/** Read-only the way this user can make it: a read-only bind mount as root (root ignores modes), modes otherwise. */
function makeReadOnly(dir: string): void {
  if (isRoot) {
    execFileSync('mount', ['--bind', dir, dir]);
    execFileSync('mount', ['-o', 'remount,ro,bind', dir]);
  } else {
    chmodSync(dir, 0o555);
  }
}

function undo(dir: string): void {
  if (isRoot) execFileSync('umount', [dir], { stdio: 'ignore' });
  else chmodSync(dir, 0o755);
}

const cause = isRoot ? 'is on a read-only file system' : 'is not writable by this user \\(EACCES\\)';

describe('a data directory that cannot be written', () => {
  before(async () => {
    // A crawl that refuses its only seed (exit 4: it reached nothing) still makes its state, log and ClickHouse store.
    const first = await runCli(['crawl', 'http://127.0.0.1:9/', '--data-dir', crawled, '--quiet']);
    assert.equal(first.code, 4, first.stderr);
    mkdirSync(empty);
    makeReadOnly(crawled);
    makeReadOnly(empty);
  });
  after(() => {
    undo(crawled);
    undo(empty);
    rmSync(root, { recursive: true, force: true });
  });

  it('should refuse a read-only data directory with that reason, not as one in use by another process', async () => {
    const r = await runCli(['crawl', 'http://127.0.0.1:9/', '--data-dir', crawled, '--quiet']);
    assert.equal(r.code, 1);
    assert.match(lastLine(r.stderr), new RegExp(`^crawlstream crawl: the data directory ${crawled} cannot be used: ${crawled}/state ${cause}`));
    assert.doesNotMatch(r.stderr, /in use by another/);
  });

  it('should say why a data directory cannot be made or used, not ENOENT', async () => {
    const inside = await runCli(['crawl', 'http://127.0.0.1:9/', '--data-dir', join(empty, 'sub'), '--quiet']);
    assert.equal(inside.code, 1);
    assert.match(lastLine(inside.stderr), new RegExp(`cannot be made: ${empty} \\(where ${empty}/sub would be made\\) ${cause}$`));
    const at = await runCli(['crawl', 'http://127.0.0.1:9/', '--data-dir', empty, '--quiet']);
    assert.equal(at.code, 1);
    assert.match(lastLine(at.stderr), new RegExp(`the data directory ${empty} cannot be used: ${empty} ${cause}`));
    const file = join(root, 'a-file');
    writeFileSync(file, 'x');
    const notDir = await runCli(['crawl', 'http://127.0.0.1:9/', '--data-dir', join(file, 'sub'), '--quiet']);
    assert.match(lastLine(notDir.stderr), new RegExp(`cannot be made: ${file} is not a directory$`));
    for (const r of [inside, at, notDir]) assert.doesNotMatch(r.stderr, /ENOENT/);
  });

  it('should say why query cannot open a read-only crawl', async () => {
    const r = await runCli(['query', 'SELECT count() FROM pages', '--data-dir', crawled]);
    assert.equal(r.code, 1);
    assert.match(lastLine(r.stderr), new RegExp(`cannot open the embedded ClickHouse store ${crawled}/clickhouse: ${crawled}/clickhouse ${cause}, and embedded ClickHouse writes there even to read`));
  });
});
