// The CPU budget of a page, by component, against the targets of issue 19: measured by thread in the
// embedded crawl (exact per-thread CPU from /proc, bench/threads.ts), the main thread split by the
// share of its busy samples in the profiled crawl (bench/cpu-profile.ts componentOf), and body
// storage measured alone on bench pages (its compression runs on libuv's pool, whose threads also do
// LevelDB and fs work and cannot be told apart).
import type { Component } from './cpu-profile.js';
import type { CrawlRun } from './crawls.js';
import type { Results } from './report.js';

export interface BudgetRow {
  component: string;
  msPerPage: number | null;
  /** The issue's target in CPU-ms per page, or null when it sets none. */
  target: number | null;
  how: string;
}

export interface Budget {
  run: string;
  pages: number;
  rows: BudgetRow[];
}

const r3 = (n: number) => Math.round(n * 1000) / 1000;
const pct = (share: number) => `${Math.round(share * 100)} %`;

export function budgetOf(res: Results): Budget | undefined {
  const run: CrawlRun | undefined = res.crawls.embedded ?? res.profile?.run;
  const th = run?.threads;
  if (!run || !th || run.pages <= 0) return undefined;
  const per = (seconds: number) => r3((seconds * 1000) / run.pages);
  const shares = res.profile?.components;
  const main = per(th.mainThread);
  const onMain = (c: Component) => (shares ? r3(main * shares[c]) : null);
  const split = shares
    ? `of which (shares of the profiled crawl's busy main-thread samples): scheduling, HTTP, Avro, LevelDB, commits ${pct(shares.rest)}, GC ${pct(shares.gc)}, sink ${pct(shares.sink)}, body storage ${pct(shares.body)}, parse hand-off ${pct(shares.parse)}`
    : 'no profile in this run (section profile): not split';
  const alone = res.ceilings?.parse.benchPages;
  const bodyAlone = alone?.compressCpuMicrosPerPage !== undefined ? (alone.compressCpuMicrosPerPage + (alone.decompressCpuMicrosPerPage ?? 0)) / 1000 : null;
  const rows: BudgetRow[] = [
    { component: 'whole crawler process, all threads', msPerPage: per(run.cpuSeconds), target: 2.0, how: `${run.cpuSeconds} CPU s (wait4) / ${run.pages} pages` },
    { component: 'main thread', msPerPage: main, target: 1.0, how: split },
    { component: '… scheduling, HTTP, Avro, LevelDB, commits, GC (main thread)', msPerPage: shares ? r3(main * (shares.rest + shares.gc)) : null, target: null, how: 'main thread × the share of its samples outside sink, body storage and parse' },
    { component: 'parse (worker threads + hand-off on the main thread)', msPerPage: r3(per(th.parseWorkers ?? 0) + (onMain('parse') ?? 0)), target: 0.3,
      how: `threads named parse-worker ${per(th.parseWorkers ?? 0)} + main-thread hand-off ${onMain('parse') ?? '—'}; alone on one core: ${alone ? `${alone.cpuMicrosPerPage} µs (parse ceiling)` : 'section ceilings not run'}` },
    { component: 'body storage (compress once, restore in parse)', msPerPage: bodyAlone === null ? null : r3(bodyAlone), target: 0.1,
      how: alone ? `alone on bench pages: compress ${alone.compressCpuMicrosPerPage} µs + restore ${alone.decompressCpuMicrosPerPage ?? '—'} µs (the restore is part of parse above; compression runs on libuv's pool); main thread ${onMain('body') ?? '—'} ms` : 'section ceilings not run' },
    { component: 'sink (rows, batching, encoding, client; main thread)', msPerPage: onMain('sink'), target: 0.3, how: 'main thread × the share of its samples under the sink stage, clickhouse/, @clickhouse/client and chdb\'s JS' },
    { component: 'chdb (ClickHouse\'s own threads: reading inserts, merges)', msPerPage: per(th.chdbAndNative), target: null, how: 'threads not named node or parse-worker' },
    { component: 'other node threads (libuv pool: LZ4, LevelDB, fs; V8 GC and compiler helpers)', msPerPage: per(th.otherNodeThreads), target: null, how: 'sampled /proc per thread' },
  ];
  return { run: run.name, pages: run.pages, rows };
}

export function renderBudget(res: Results): string[] {
  const b = budgetOf(res);
  if (!b) return [];
  const cell = (v: number | null) => (v === null ? '—' : v.toFixed(3));
  const mark = (r: BudgetRow) => (r.target === null || r.msPerPage === null ? '' : r.msPerPage <= r.target ? '✓' : '✗');
  return ['## CPU budget per page, by component (issue 19)', '',
    `From the ${b.run} crawl (${b.pages} pages). Threads' CPU is sampled from /proc once a second; the main thread's split comes from the profiled crawl.`, '',
    '| component | CPU-ms per page | target | | how |', '|---|---:|---:|:-:|---|',
    ...b.rows.map((r) => `| ${r.component} | ${cell(r.msPerPage)} | ${r.target === null ? '—' : `≤ ${r.target}`} | ${mark(r)} | ${r.how} |`), ''];
}
