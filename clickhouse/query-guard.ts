// What `crawlstream query` may read: the crawl's tables and ClickHouse's own, nothing else. A
// read-only connection still runs table functions that read files (`file`, `filesystem`), fetch URLs
// (`url`, `s3`), query other databases (`mysql`, `remote`) or run programs (`executable`); and a
// server as old as 18.16 has no setting that forbids them all. So the statement is checked here,
// before it is sent: every name called like a function is looked up, and a table function is
// allowed only when it makes its rows from the query itself (numbers, values, view, …).
//
// The check reads the SQL with a lexer that follows ClickHouse's: strings ('…', $tag$…$tag$),
// quoted names ("…", `…`) and comments (--, #, /* */) are passed over, so `SELECT 'file('` is
// allowed. Where ClickHouse versions read a text differently (a comment nested in a comment), or
// the text is cut short, the statement is refused rather than guessed at.

/** Table functions whose rows come from the query itself, or from the tables it can already read. */
const LOCAL_TABLE_FUNCTIONS = new Set([
  'numbers', 'numbers_mt', 'zeros', 'zeros_mt', 'values', 'null', 'view', 'viewifpermitted', 'viewexplain', 'merge',
  'generaterandom', 'generateseries', 'generate_series', 'format', 'primes', 'sqlstandardvalues',
].map((n) => n.toLowerCase()));

/**
 * Names refused whatever the engine lists: those that reach outside on some ClickHouse version (the
 * engine's own `system.table_functions` adds the ones this list does not know yet), and scalar
 * functions that read the machine.
 */
const OUTSIDE = new Set([
  'file', 'filecluster', 'filesystem', 'url', 'urlcluster', 's3', 's3cluster', 'gcs', 'cosn', 'oss', 'hdfs', 'hdfscluster',
  'azureblobstorage', 'azureblobstoragecluster', 'remote', 'remotesecure', 'cluster', 'clusterallreplicas', 'shardbyhash',
  'mysql', 'postgresql', 'sqlite', 'mongodb', 'redis', 'jdbc', 'odbc', 'executable', 'input', 'dictionary', 'catboostpool',
  'deltalake', 'hudi', 'iceberg', 'paimon', 'ytsaurus', 'arrowflight', 'prometheusquery', 'prometheusqueryrange',
  'filesystemavailable', 'filesystemcapacity', 'filesystemunreserved', 'filesystemfree',
]);

export class QueryRefused extends Error {
  override name = 'QueryRefused';
}

/** Every name the statement calls like a function (`name(`, `"name" (`), lowercase, in order. */
export function calledNames(sql: string): string[] {
  const names: string[] = [];
  let pendingName: string | undefined;
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const c = sql[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if ((c === '-' && sql[i + 1] === '-') || c === '#') {
      const end = sql.indexOf('\n', i);
      i = end === -1 ? n : end + 1;
      continue;
    }
    if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      if (end === -1) throw new QueryRefused('the statement ends inside a /* comment');
      // ClickHouse 26 nests block comments and 18.16 does not: they would disagree about where it ends.
      if (sql.slice(i + 2, end).includes('/*')) throw new QueryRefused('a /* comment inside a /* comment is read differently by ClickHouse versions: remove it');
      i = end + 2;
      continue;
    }
    if (c === "'" || c === '"' || c === '`') {
      const end = closingQuote(sql, i);
      if (c === "'") pendingName = undefined;
      else pendingName = unquote(sql.slice(i + 1, end)).toLowerCase();
      i = end + 1;
      continue;
    }
    if (c === '$') {
      const tag = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i));
      if (tag) {
        const end = sql.indexOf(tag[0], i + tag[0].length);
        if (end === -1) throw new QueryRefused(`the statement ends inside a ${tag[0]} string`);
        i = end + tag[0].length;
        pendingName = undefined;
        continue;
      }
    }
    if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_$]*/.exec(sql.slice(i))!;
      pendingName = m[0].toLowerCase();
      i += m[0].length;
      continue;
    }
    if (c === '(' && pendingName !== undefined) names.push(pendingName);
    // `db.name(` calls `name`: the dot keeps the name after it as the candidate.
    pendingName = undefined;
    i++;
  }
  return names;
}

/** The index of the quote that closes the one at `start` (backslash escapes and doubled quotes). */
function closingQuote(sql: string, start: number): number {
  const q = sql[start];
  for (let i = start + 1; i < sql.length; i++) {
    if (sql[i] === '\\') {
      i++;
      continue;
    }
    if (sql[i] === q) {
      if (sql[i + 1] === q) {
        i++;
        continue;
      }
      return i;
    }
  }
  throw new QueryRefused(`the statement ends inside a ${q}…${q} ${q === "'" ? 'string' : 'name'}`);
}

function unquote(s: string): string {
  return s.replace(/\\(.)/g, '$1').replace(/(["`])\1/g, '$1');
}

/**
 * Throws a QueryRefused naming what the statement would reach outside the crawl's data.
 * @param tableFunctions the engine's own table functions (system.table_functions), lowercase
 */
export function assertReadsOnlyCrawlData(sql: string, tableFunctions: ReadonlySet<string>): void {
  const refused = [...new Set(calledNames(sql).filter((name) =>
    (OUTSIDE.has(name) || tableFunctions.has(name)) && !LOCAL_TABLE_FUNCTIONS.has(name)))];
  if (refused.length) {
    throw new QueryRefused(
      `crawlstream query reads only the crawl's data: ${refused.map((r) => `${r}()`).join(', ')} would read files, ` +
        'URLs, other databases or programs, and is refused',
    );
  }
}
