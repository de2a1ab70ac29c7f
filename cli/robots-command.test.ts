import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = mkdtempSync(join(tmpdir(), 'crawlstream-robots-cli-'));
const file = join(dir, 'robots.txt');
writeFileSync(file, 'User-agent: *\nDisallow: /private/\n');
after(() => rmSync(dir, { recursive: true, force: true }));
const main = fileURLToPath(new URL('./main.js', import.meta.url));

function robots(...args: string[]) {
  return spawnSync(process.execPath, [main, 'robots', file, '--user-agent', 'testbot', ...args], { encoding: 'utf8' });
}

test('should print a verdict per URL', () => {
  const r = robots('http://site.test/private/x', 'https://site.test/open');
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, 'disallowed http://site.test/private/x\nallowed https://site.test/open\n');
});

test('should refuse an argument that is not an http(s) URL with a usage error and print no verdicts', () => {
  const r = robots('http://site.test/open', 'notaurl', 'ftp://site.test/x');
  assert.equal(r.status, 2);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr, 'crawlstream robots: not an absolute http(s) URL: "notaurl", "ftp://site.test/x" (e.g. https://example.org/page)\n');
});
