// A user's own processor, loaded from an ES module (`--processor-module FILE`) into the crawl's
// topology, embedded and on Kafka. The module is handed the public API, so it needs nothing installed
// beside it:
//
//   export default ({ defineProcessor, topics, bodyText }) => ({
//     tables: [{ name: 'meta_descriptions', columns: { url: 'String', description: 'String' }, orderBy: ['url'] }],
//     processor: defineProcessor({ name: 'meta-description', kind: 'sink', inputs: [topics.fetched], outputs: [], stores: [], ... ,
//       create: ({ rows }) => { ... rows.open(table, ctx).write(record, [{ url, description }]) ... } }),
//   });
//
// Its inputs must be among the crawl's topics, its stores its own, its rows go through the typed
// `rows` service, and its tables are created by `clickhouse migrate` (and at the first write).
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as api from '../engine/api.js';
import type { AnyProcessorDefinition } from '../engine/api.js';
import { checkUserTable, type UserTable } from '../clickhouse/user-tables.js';
import { decompressBody } from '../fetching/body-codec.js';
import { decodeHtml } from '../parsing/decode-html.js';
import type { FetchResult } from '../schemas/records.js';
import type { CrawlServices } from '../contract/services.js';
import * as topics from '../contract/topics.js';
import { boundedDefinition, DEFAULT_MODULE_TIMEOUT_MS } from './bounded-module.js';

/** A fetched record's body never decodes to more than this (the fetched topic's record bound). */
const MAX_STORED_BODY = 16 * 1024 * 1024;

/** What a processor module's default export receives. */
export const moduleApi = {
  ...api,
  topics,
  /** A fetched body as text (decompressed, charset decoded): its first `maxBytes`. */
  bodyText(r: FetchResult, maxBytes = 1024 * 1024): string {
    const bytes = decompressBody(r.body_encoding, r.body, MAX_STORED_BODY);
    return decodeHtml(bytes.subarray(0, maxBytes), r.charset).html;
  },
};

export interface ProcessorModule {
  path: string;
  processor: AnyProcessorDefinition<CrawlServices>;
  tables: UserTable[];
}

/** `timeoutMs` bounds the module's init and each process (--module-timeout; bounded-module.ts). */
export async function loadProcessorModule(file: string, opts: { timeoutMs?: number } = {}): Promise<ProcessorModule> {
  const path = resolve(file);
  let mod: { default?: unknown };
  try {
    mod = (await import(pathToFileURL(path).href)) as { default?: unknown };
  } catch (err) {
    throw new Error(`cannot load the processor module ${file}: ${(err as Error).message}`);
  }
  if (typeof mod.default !== 'function') throw new Error(`the processor module ${file} must export a default function (api) => ({ processor, tables })`);
  const made = (mod.default as (a: typeof moduleApi) => { processor?: unknown; tables?: unknown })(moduleApi);
  const processor = made?.processor as Partial<AnyProcessorDefinition<CrawlServices>> | undefined;
  if (!processor || typeof processor.name !== 'string' || typeof processor.create !== 'function' || !Array.isArray(processor.inputs)) {
    throw new Error(`the processor module ${file} must return { processor } made with defineProcessor (name, inputs, outputs, stores, create)`);
  }
  // Both names become topic, group and key names: the same characters for the one it is stored under.
  for (const [what, name] of [['processor name', processor.name], ['storedAs', processor.storedAs]] as const) {
    if (name !== undefined && (typeof name !== 'string' || !/^[a-z][a-z0-9-]{0,40}$/.test(name))) throw new Error(`${file}: ${what} ${JSON.stringify(name)}: use lowercase letters, digits and -`);
  }
  const tables = ((made.tables ?? []) as unknown[]).map((t) => checkUserTable(t, file));
  const bounded = boundedDefinition(processor as AnyProcessorDefinition<CrawlServices>, file, opts.timeoutMs ?? DEFAULT_MODULE_TIMEOUT_MS);
  return { path, processor: bounded, tables };
}
