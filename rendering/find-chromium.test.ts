import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findChromium } from './find-chromium.js';

test('should prefer an explicit path, then $CRAWLSTREAM_CHROMIUM, then an executable chromium on PATH', () => {
  const dir = mkdtempSync(join(tmpdir(), 'find-chromium-'));
  try {
    const a = join(dir, 'a');
    const b = join(dir, 'b');
    mkdirSync(a);
    mkdirSync(b);
    writeFileSync(join(a, 'chromium'), '#!/bin/sh\n'); // not executable: skipped
    mkdirSync(join(a, 'google-chrome')); // a directory: skipped
    writeFileSync(join(b, 'chromium-browser'), '#!/bin/sh\n');
    chmodSync(join(b, 'chromium-browser'), 0o755);
    const PATH = `${a}:${b}`;
    assert.equal(findChromium(undefined, { PATH }), join(b, 'chromium-browser'));
    assert.equal(findChromium(undefined, { PATH, CRAWLSTREAM_CHROMIUM: '/opt/c/chrome' }), '/opt/c/chrome');
    assert.equal(findChromium('/explicit/chromium', { PATH, CRAWLSTREAM_CHROMIUM: '/opt/c/chrome' }), '/explicit/chromium');
    assert.equal(findChromium(undefined, { PATH: a }), undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
