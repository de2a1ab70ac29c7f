// What embedded ClickHouse (chdb) may hold in RAM, set where it can only be set: when its library loads
// and when its engine starts. Measured on the 10,000-page bench crawl (bench/levers.json, README "What an
// embedded crawl costs in RAM").
//
// - chdb is loaded on first use, not when this module is imported: its library maps ~140 MB the moment
//   it loads, which a crawl writing to a ClickHouse server (every Kafka worker) never needs.
// - libchdb allocates through a jemalloc of its own (prefixed je_, so it reads JE_MALLOC_CONF, once, as
//   the library loads). ClickHouse's default keeps freed pages for 5 s (dirty_decay_ms:5000), in one
//   arena per CPU: after every merge of parsed_pages the process kept what the merge had peaked at
//   (100-200 MB), on top of what the next one took. Freed pages are kept 250 ms here, then lazily
//   purged ones returned at once (muzzy_decay_ms:0); one arena and no per-thread caches serve chdb's
//   ~20 threads (narenas:1, tcache:false): what an embedded crawl's few inserts and small merges
//   need, and 30-37 MB less at the bench crawl's peak (bench/levers.json). Not 0 ms: pages returned
//   at once were faulted in (and zeroed, and their TLB entries shot down on every core) again by the
//   next insert or merge; a quarter of chdb's CPU was the kernel doing that. 250 ms took chdb's CPU
//   per page down by ~30 % for ~+15-25 MB at the peak (issue 19, README).
// - Merges: horizontal merges of parsed_pages (a page's text, links as arrays) read every column of
//   every part at once, and took 130-210 MB each at 10,000 pages. Vertical merges (key columns first,
//   then one column at a time), blocks of at most 1 MB and granules of at most 1 MB keep a merge under
//   ~25 MB whatever the table's size. These are merge-tree settings, which chdb reads only from a
//   configuration file given when its engine starts.
import type * as ChdbConnectionModule from 'chdb/connection';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** jemalloc options for chdb (JE_MALLOC_CONF), unless the user set their own. */
export const CHDB_JEMALLOC_CONF = 'dirty_decay_ms:250,muzzy_decay_ms:0,narenas:1,tcache:false';

/** Merge-tree settings every table of the embedded ClickHouse gets, unless its own SETTINGS say otherwise. */
export const CHDB_MERGE_TREE_SETTINGS: Readonly<Record<string, number>> = {
  vertical_merge_algorithm_min_rows_to_activate: 1,
  vertical_merge_algorithm_min_columns_to_activate: 1,
  merge_max_block_size: 1024,
  merge_max_block_size_bytes: 1 << 20,
  index_granularity_bytes: 1 << 20,
};

/** The file chdb's engine reads its merge-tree settings from, written in its directory at each open. */
export const CHDB_CONFIG_FILE = 'crawlstream-chdb.xml';

let loaded: Promise<typeof ChdbConnectionModule> | undefined;

/** chdb's client connection module, loaded (with its allocator's options) on first use. */
export function loadChdb(): Promise<typeof ChdbConnectionModule> {
  loaded ??= (async () => {
    const own = process.env.JE_MALLOC_CONF;
    if (own === undefined) process.env.JE_MALLOC_CONF = CHDB_JEMALLOC_CONF;
    try {
      return await import('chdb/connection');
    } finally {
      // Read once as the library loaded; child processes (a browser, …) need not inherit it.
      if (own === undefined) delete process.env.JE_MALLOC_CONF;
    }
  })();
  return loaded;
}

export function chdbConfigXml(settings: Readonly<Record<string, number>> = CHDB_MERGE_TREE_SETTINGS): string {
  const lines = Object.entries(settings).map(([k, v]) => `    <${k}>${v}</${k}>`);
  return `<clickhouse>\n  <!-- written by crawlstream at every open (clickhouse/chdb-memory.ts) -->\n  <merge_tree>\n${lines.join('\n')}\n  </merge_tree>\n</clickhouse>\n`;
}

/**
 * Starts chdb's engine on `dir` with the merge-tree settings above and returns a function that releases
 * the session used to start it: the engine then lives on with the connection opened meanwhile. (chdb's
 * client connection takes no engine arguments; a session on the same directory shares its engine.)
 * When an engine already runs on `dir` in this process, its settings stay as they are.
 */
export async function startChdbEngine(dir: string, readOnly: boolean): Promise<() => void> {
  // A read-only open writes nothing: its engine starts with ClickHouse's own merge settings.
  if (readOnly) return () => {};
  const file = join(dir, CHDB_CONFIG_FILE);
  writeFileSync(file, chdbConfigXml());
  await loadChdb();
  const { Session } = await import('chdb');
  const session = new Session(dir, { connectionArgs: [`--config-file=${file}`] });
  return () => session.close();
}
