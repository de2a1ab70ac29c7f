// A user's own parsing step, loaded from an ES module (`--parser-module FILE`) for a replay: it sees
// each page's extract and the HTML, returns the extract to keep, and names its version, which every
// row it produces carries (parser_version) so that re-parsed results replace the earlier ones.
//
//   export const version = 'titles-v2';
//   export function transform(page, { url, html }) { return { ...page, title: page.title.trim() }; }
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { PageExtract } from './extract-page.js';

export interface ParserModule {
  version: string;
  /** Where it was loaded from: parse worker threads load it again. */
  path: string;
  transform(page: PageExtract, context: { url: string; html: string }): PageExtract;
}

export async function loadParserModule(file: string): Promise<ParserModule> {
  let mod: Partial<ParserModule>;
  try {
    mod = (await import(pathToFileURL(resolve(file)).href)) as Partial<ParserModule>;
  } catch (err) {
    throw new Error(`cannot load the parser module ${file}: ${(err as Error).message}`);
  }
  if (typeof mod.transform !== 'function') throw new Error(`the parser module ${file} must export a function transform(page, { url, html })`);
  if (typeof mod.version !== 'string' || !mod.version) throw new Error(`the parser module ${file} must export a non-empty string version`);
  return { version: mod.version, path: resolve(file), transform: mod.transform.bind(mod) };
}
