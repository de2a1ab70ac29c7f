// The engine never imports the application: every import in engine/ resolves inside engine/, to a
// package, or (tests only) to the shared test support that locates the services.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const ENGINE = join(ROOT, 'engine');

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sources(p, out);
    else if (name.endsWith('.ts')) out.push(p);
  }
  return out;
}

describe('engine boundary', () => {
  it('should find the engine\'s sources to check', () => {
    assert.ok(sources(ENGINE).length > 20, `engine sources under ${ENGINE}`);
  });

  it('should import nothing of the crawler from any engine file', () => {
    const offences: string[] = [];
    for (const file of sources(ENGINE)) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/(?:from\s+|import\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g)) {
        const target = relative(ROOT, resolve(dirname(file), m[1]));
        if (target.startsWith('engine/')) continue;
        if (file.endsWith('.test.ts') && target.startsWith('test/support/')) continue;
        offences.push(`${relative(ROOT, file)} imports ${m[1]}`);
      }
    }
    assert.deepEqual(offences, []);
  });
});
