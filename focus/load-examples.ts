// Reads a folder of example pages (--focus-examples DIR, --focus-counterexamples DIR) into the texts a
// focus spec carries: `.txt` files as they are, `.html`/`.htm` files as their title and visible text
// (the crawler's own extraction). Files are taken in name order, so one folder always makes one model.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { decodeHtml } from '../parsing/decode-html.js';
import { extractPage } from '../parsing/extract-page.js';
import { MAX_EXAMPLE_CHARS } from './focus-spec.js';

const EXAMPLE_FILE = /\.(txt|html?)$/i;

export interface LoadedExamples {
  texts: string[];
  files: string[];
  /** Files cut to MAX_EXAMPLE_CHARS, and files left out (empty, or not .txt/.html), for the user to hear of. */
  cut: string[];
  ignored: string[];
}

export function loadExamples(dir: string): LoadedExamples {
  let names: string[];
  try {
    if (!statSync(dir).isDirectory()) throw new Error('not a folder');
    names = readdirSync(dir).sort();
  } catch (err) {
    throw new Error(`cannot read the example folder ${dir}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const out: LoadedExamples = { texts: [], files: [], cut: [], ignored: [] };
  for (const name of names) {
    const path = join(dir, name);
    if (!EXAMPLE_FILE.test(name) || !statSync(path).isFile()) {
      out.ignored.push(name);
      continue;
    }
    const bytes = readFileSync(path);
    let text = /\.txt$/i.test(name) ? bytes.toString('utf8') : htmlText(bytes, name);
    text = text.replace(/\s+/g, ' ').trim();
    if (!text) {
      out.ignored.push(name);
      continue;
    }
    if (text.length > MAX_EXAMPLE_CHARS) {
      text = text.slice(0, MAX_EXAMPLE_CHARS);
      out.cut.push(name);
    }
    out.texts.push(text);
    out.files.push(name);
  }
  if (out.texts.length === 0) throw new Error(`the example folder ${dir} holds no .txt or .html page with text`);
  return out;
}

function htmlText(bytes: Buffer, name: string): string {
  const page = extractPage(decodeHtml(bytes, '').html, `http://example.invalid/${encodeURIComponent(name)}`, 'crawlstream');
  return `${page.title} ${page.text}`;
}
