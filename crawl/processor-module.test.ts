// A module's processor names become group, topic and key names: both the name and the one it is
// stored under (storedAs, for a module whose processor was renamed) are checked when it loads.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadProcessorModule } from './processor-module.js';

function moduleFile(names: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'processor-module-')), 'module.mjs');
  writeFileSync(file, `export default ({ defineProcessor, topics }) => ({ processor: defineProcessor({ ${names},
    description: '', delivery: '', kind: 'sink', inputs: [topics.fetched], outputs: [], stores: [], create: () => ({ process() {} }) }) });\n`);
  return file;
}

describe('processor modules', () => {
  it('should load a renamed processor pinned to its old name, and refuse a stored name no topic or group may carry', async () => {
    const m = await loadProcessorModule(moduleFile("name: 'page-titles', storedAs: 'titles'"));
    assert.deepEqual([m.processor.name, m.processor.storedAs], ['page-titles', 'titles']);
    await assert.rejects(loadProcessorModule(moduleFile("name: 'page-titles', storedAs: 'Titles!'")), /storedAs "Titles!": use lowercase letters, digits and -/);
    await assert.rejects(loadProcessorModule(moduleFile("name: 'Page'")), /processor name "Page": use lowercase letters, digits and -/);
  });
});
