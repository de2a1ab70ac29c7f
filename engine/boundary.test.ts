// The layers import one way. From the bottom up:
//   engine/                   the stream engine: imports nothing of the crawl
//   libraries                 fetching/, parsing/, url/, scope/, robots/, sitemaps/, pdf/, rendering/, focus/,
//                             politeness/, recrawl/: the crawl's building blocks, no stage, no wiring
//   outputs                   clickhouse/, warc/, metrics/: where results go; no stage, no wiring
//   contract/, schemas/       the crawl's topics, records, configuration and service interfaces
//   stages/<stage>/           one processor each; no other stage, no wiring
//   crawl/, cli/              the wiring: topologies, runtimes' set-up, commands
// Tests and harnesses (`*.test.ts`, `testing/` folders, test/, test-web/) may reach anything.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const LIBRARIES = ['fetching', 'parsing', 'url', 'scope', 'robots', 'sitemaps', 'pdf', 'rendering', 'politeness', 'recrawl', 'focus'];
const OUTPUTS = ['clickhouse', 'warc', 'metrics'];
const WIRING = ['crawl', 'cli'];

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (name !== 'node_modules' && name !== 'testing') sources(p, out);
    } else if (name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** Every relative import of the product's sources in `folders`, as [file, target] paths from the root. */
function imports(folders: string[]): [string, string][] {
  const found: [string, string][] = [];
  for (const folder of folders) {
    for (const file of sources(join(ROOT, folder))) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/(?:from\s+|import\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g)) {
        found.push([relative(ROOT, file), relative(ROOT, resolve(dirname(file), m[1]))]);
      }
    }
  }
  return found;
}

const topOf = (path: string) => path.split('/')[0];
const offences = (folders: string[], forbidden: (file: string, target: string) => boolean) =>
  imports(folders).filter(([f, t]) => forbidden(f, t)).map(([f, t]) => `${f} imports ${t}`);

describe('layers', () => {
  it('should find the sources to check', () => {
    assert.ok(sources(join(ROOT, 'engine')).length > 20);
    assert.ok(sources(join(ROOT, 'stages')).length > 15);
  });

  it('should keep the engine free of the crawl', () => {
    assert.deepEqual(offences(['engine'], (_, t) => topOf(t) !== 'engine'), []);
  });

  it('should keep libraries and outputs free of stages and wiring', () => {
    assert.deepEqual(offences([...LIBRARIES, ...OUTPUTS], (_, t) => ['stages', ...WIRING].includes(topOf(t))), []);
  });

  it('should keep the crawl contract free of stages and wiring', () => {
    assert.deepEqual(offences(['contract', 'schemas'], (_, t) => ['stages', ...WIRING].includes(topOf(t))), []);
  });

  it('should keep each stage free of wiring and of other stages', () => {
    const stageOf = (p: string) => p.split('/').slice(0, 2).join('/');
    assert.deepEqual(offences(['stages'], (f, t) => WIRING.includes(topOf(t)) || (topOf(t) === 'stages' && stageOf(t) !== stageOf(f))), []);
  });
});
