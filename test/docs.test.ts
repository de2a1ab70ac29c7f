// README.md and docs/ name files, folders and code symbols; a rename that forgets them leaves a newcomer
// looking for something that is not there. Every path they name must exist, and every code symbol they
// name (camelCase, PascalCase, Class.member) must be declared somewhere in the sources — or be a name
// of another project's, listed below.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stageTable, withStageTable } from '../crawl/stage-table.js';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const SKIP = new Set(['node_modules', 'dist', '.git', '.services', 'results', '.tmp']);

/** Names of other projects, protocols and tools that the docs mention in code style. */
const EXTERNAL = new Set([
  'ReplacingMergeTree', 'MergeTree', 'CheerioCrawler', 'TopologyDescription', 'TopologyTestDriver', 'TxnOffsetCommit',
  'LineAsString', 'JSONEachRow', 'RowBinary', 'LowCardinality', 'DateTime64', 'Float32', 'UInt64', 'UInt32', 'UInt16',
  'UInt8', 'Int64', 'Int32', 'Nullable', 'Array', 'String', 'Map', 'Date', 'TextDecoder', 'AbortController',
  'AbortSignal', 'Promise', 'Buffer', 'URL', 'JSON', 'ProxyAgent', 'readUncommitted', 'groupId', 'eachMessage',
  'num.stream.threads', 'exactly_once_v2', 'maxWaitTimeInMs', 'transactionalId', 'SchemaRegistry',
  'Date.now', 'process.cpuUsage', 'setTimeout', 'setImmediate', 'isAllowed', 'robotsParser',
]);

function files(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name)) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) files(p, out);
    else out.push(relative(ROOT, p));
  }
  return out;
}

const all = files(ROOT);
const names = new Set(all.map((f) => basename(f)));
const folders = new Set(all.flatMap((f) => f.split('/').slice(0, -1).map((_, i, parts) => parts.slice(0, i + 1).join('/'))));
const folderNames = new Set([...folders].map((f) => basename(f)));
/** Made by a crawl or a demo, never committed. */
const GENERATED = new Set(['crawl-data', 'demo-data']);
const sources = all.filter((f) => /\.(ts|mjs|js|py|sh)$|^package\.json$/.test(f) && !f.endsWith('.test.ts')).map((f) => readFileSync(join(ROOT, f), 'utf8')).join('\n');

const docs = ['README.md', ...all.filter((f) => f.startsWith('docs/') && f.endsWith('.md')), ...all.filter((f) => /^[^/]+\/README\.md$/.test(f))];

function codeSpans(text: string): string[] {
  const spans: string[] = [];
  // Fenced blocks are commands and examples, not references.
  const prose = text.replace(/```[\s\S]*?```/g, '');
  for (const m of prose.matchAll(/`([^`\n]+)`/g)) spans.push(m[1].trim());
  return spans;
}

const PATH = /^[A-Za-z0-9_.\-/<>]+\.(ts|mjs|js|py|sh|md|yml|yaml|json|avsc|html)$|^[a-z0-9_\-]+(\/[a-z0-9_\-<>]+)*\/$/;
const SYMBOL = /^([A-Za-z_$][\w$]*)(\.[A-Za-z_$][\w$]*)?(\(\))?$/;

function pathExists(doc: string, p: string): boolean {
  if (p.includes('<')) return true; // a pattern such as stages/<stage>/
  const clean = p.replace(/\/$/, '');
  if (existsSync(join(ROOT, clean)) || existsSync(join(ROOT, dirname(doc), clean))) return true;
  if (!clean.includes('/')) return names.has(clean) || folderNames.has(clean) || GENERATED.has(clean);
  // a path relative to a folder named just before it in the same table row: accept its tail anywhere
  return all.some((f) => f.endsWith(`/${clean}`)) || [...folders].some((f) => f.endsWith(`/${clean}`));
}

function symbolDeclared(s: string): boolean {
  const [, head, member] = SYMBOL.exec(s)!;
  const declared = (id: string) => new RegExp(`\\b${id.replace(/\$/g, '\\$')}\\b`).test(sources);
  return declared(head) && (!member || declared(member.slice(1)));
}

describe('README and docs', () => {
  it('should name only paths that exist', () => {
    const missing: string[] = [];
    for (const doc of docs) {
      for (const span of codeSpans(readFileSync(join(ROOT, doc), 'utf8'))) {
        for (const word of span.split(/[\s,()]+/)) {
          if (!PATH.test(word) || /^https?:/.test(word) || word.startsWith('/') || word.includes('*')) continue;
          if (!pathExists(doc, word)) missing.push(`${doc}: ${word}`);
        }
      }
    }
    assert.deepEqual(missing, []);
  });

  it('should name only code symbols that exist', () => {
    const missing: string[] = [];
    for (const doc of docs) {
      for (const span of codeSpans(readFileSync(join(ROOT, doc), 'utf8'))) {
        const s = span.replace(/\(\)$/, '');
        if (!SYMBOL.test(s) || EXTERNAL.has(s) || EXTERNAL.has(s.split('.')[0])) continue;
        const [, head, member] = SYMBOL.exec(s)!;
        // Only names that look like code: camelCase, PascalCase, or Class.member.
        if (!member && !/^[a-z]+[A-Z]\w*$|^[A-Z][a-z]+[A-Z]\w*$/.test(head)) continue;
        if (member && !/^[A-Z]/.test(head)) continue; // `file.ts`, `ctx.store`: not a Class.member
        if (!symbolDeclared(s)) missing.push(`${doc}: ${span}`);
      }
    }
    assert.deepEqual(missing, []);
  });

  it('should show the stage table rendered from the topology (npm run docs:stages)', () => {
    const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
    assert.equal(doc, withStageTable(doc, stageTable()), 'docs/architecture.md: the stage table differs from the topology; run npm run docs:stages');
  });
});
