// Real English prose for simhash measurements, taken from the Markdown documentation that ships
// inside installed dependencies (node_modules/**/*.md): READMEs, API references, upgrade guides.
// Tests use it so that near-duplicate detection is judged on text people wrote, not on generated
// words; the lockfile pins which documents are there.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

export interface ProseDocument {
  /** Path below node_modules, e.g. "level/README.md". */
  path: string;
  /** The package directory it belongs to ("@scope/name" or "name"), for grouping by topic. */
  pkg: string;
  words: string[];
}

// Release notes are lists of version numbers and one-line changes, often shipped twice (a client
// and its common package): not articles.
const SKIPPED_NAMES = /^(?:change(?:s|log)|history|license|licence|releases?|security|code_of_conduct|contributing)\b/i;

function markdownFiles(dir: string, out: string[] = [], depth = 0): string[] {
  if (depth > 8) return out;
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    let stat;
    try {
      stat = statSync(path);
    } catch {
      continue; // a dangling link
    }
    if (stat.isDirectory()) {
      if (name !== '.bin' && name !== 'test' && name !== 'tests') markdownFiles(path, out, depth + 1);
    } else if (/\.md$/i.test(name) && !SKIPPED_NAMES.test(name) && stat.size < 1_000_000) {
      out.push(path);
    }
  }
  return out;
}

/** Prose of a Markdown document: code, tables, HTML and link targets removed, words kept in order. */
export function markdownProse(markdown: string): string[] {
  const lines: string[] = [];
  let fenced = false;
  for (const line of markdown.split(/\r?\n/)) {
    if (/^\s*(?:```|~~~)/.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (fenced || /^(?: {4}|\t)/.test(line) || /^\s*\|/.test(line) || /^\s*</.test(line)) continue;
    lines.push(line
      .replace(/!\[[^\]]*\]\([^)]*\)/g, ' ') // images
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1') // links keep their text
      .replace(/\[([^\]]*)\]\[[^\]]*\]/g, '$1')
      .replace(/^\s*\[[^\]]+\]:\s*\S+.*$/, ' ') // link definitions
      .replace(/https?:\/\/\S+/g, ' ')
      .replace(/[`*_#>]/g, ' '));
  }
  return lines.join(' ').split(/\s+/).filter(w => /[A-Za-z]/.test(w));
}

/**
 * Every Markdown document under `nodeModules` with at least `minWords` words of prose, byte-identical
 * copies once, in path order.
 */
export function loadProse(nodeModules: string, minWords: number): ProseDocument[] {
  const seen = new Set<string>();
  const docs: ProseDocument[] = [];
  for (const file of markdownFiles(nodeModules)) {
    const markdown = readFileSync(file, 'utf8');
    const digest = createHash('sha1').update(markdown).digest('hex');
    if (seen.has(digest)) continue;
    seen.add(digest);
    const words = markdownProse(markdown);
    if (words.length < minWords) continue;
    const path = relative(nodeModules, file).split('\\').join('/');
    const parts = path.split('/');
    // The innermost package: "a/node_modules/@s/b/README.md" belongs to "@s/b".
    const at = parts.lastIndexOf('node_modules');
    const rest = at >= 0 ? parts.slice(at + 1) : parts;
    const pkg = rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
    docs.push({ path, pkg, words });
  }
  return docs;
}

/** Word 5-shingle resemblance (Jaccard): the ground truth of how much text two windows share. */
export function resemblance(a: string[], b: string[]): number {
  const shingles = (w: string[]) => {
    const out = new Set<string>();
    const lower = w.map(x => x.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ''));
    for (let i = 0; i + 5 <= lower.length; i++) out.add(lower.slice(i, i + 5).join(' '));
    return out;
  };
  const x = shingles(a), y = shingles(b);
  let shared = 0;
  for (const s of x) if (y.has(s)) shared++;
  const union = x.size + y.size - shared;
  return union === 0 ? 0 : shared / union;
}
