// The Markdown of one benchmark run: targets, crawls, CPU per page by component, records per topic,
// ceilings, stage costs, the large run, the profile and the levers table.
import { renderBudget } from './budget.js';
import type { CrawlRun } from './crawls.js';
import { renderLevers, type LeversFile } from './levers.js';
import { compare, engineRuns, msPerPage, ratio, type Results } from './report.js';
import { kafkaCostSection } from './kafka-cost.js';
import { freshnessSection } from './freshness-report.js';

export const fmt = (v: number | null | undefined, d = 1) => (v === null || v === undefined || !Number.isFinite(v) ? '—' : Number(v).toFixed(d));
const mark = (ok: boolean | null) => (ok === null ? '—' : ok ? '✓ met' : '✗ not met');

/** Cores other processes kept busy on average while the crawl ran (the machine's load during it). */
export const othersCores = (r: CrawlRun) => (r.backgroundCpuSeconds === undefined ? undefined : r.backgroundCpuSeconds / Math.max(r.wallSeconds, 0.001));
/** Above this, wall-clock figures of a run say more about the machine than about the crawler. */
const DISTURBED_CORES = 0.25;

/** Every crawl of the run, the long ones included. */
const allRuns = (res: Results): CrawlRun[] =>
  [...Object.values(res.crawls), ...[res.large, res.largeDeep].filter((r): r is CrawlRun => r !== undefined)];

function loadWarning(res: Results): string[] {
  const runs = allRuns(res);
  const disturbed = runs.filter((r) => (othersCores(r) ?? 0) > DISTURBED_CORES);
  if (disturbed.length === 0) return [];
  return [`**Disturbed runs:** other processes kept ${disturbed.map((r) => `${fmt(othersCores(r), 2)} cores busy during ${r.name}`).join(', ')} ` +
    `(of ${res.machine.logicalCores}). Their pages/s (and every ratio of pages/s) measure the machine's load as much as the crawler; ` +
    'CPU per page is less affected. Rerun on a quiet machine before judging a wall-clock target.', ''];
}

function crawlTable(res: Results, ref: CrawlRun | undefined): string[] {
  const rows = ['| run | web | seeds | pages (server) | wall s | pages/s | ×Crawlee | active-window pages/s | peak RSS MB | ×Crawlee | CPU s / 1000 pages | ×Crawlee | peak req/s to one host | host idle between requests p50 / p90 ms | max conns per host / total | robots.txt reqs | server CPU s | other processes\' cores |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|'];
  const runs = allRuns(res);
  for (const r of runs) {
    rows.push(`| ${r.name} | ${r.web_kind ?? 'bench'}${r.https ? ' https' : ''} ${r.hosts}×${r.pagesPerHost} | ${r.seeds ?? '—'} | ${r.pages} | ${fmt(r.wallSeconds)} | ${fmt(r.pagesPerSecond)} | ${fmt(ratio(r.pagesPerSecond, ref?.pagesPerSecond), 2)} | ` +
      `${fmt(r.activePagesPerSecond)} | ${fmt(r.peakRssMb, 0)} | ${fmt(ratio(r.peakRssMb, ref?.peakRssMb), 2)} | ${fmt(r.cpuSecondsPer1000Pages, 2)} | ${fmt(ratio(r.cpuSecondsPer1000Pages, ref?.cpuSecondsPer1000Pages), 2)} | ` +
      `${r.web.peakRequestsPerHostPerSecond} | ${r.web.hostGapMs ? `${fmt(r.web.hostGapMs.p50, 0)} / ${fmt(r.web.hostGapMs.p90, 0)}` : '—'} | ${r.web.maxConnectionsPerHost} / ${r.web.maxConnectionsTotal} | ${r.web.robotsRequests} | ${fmt(r.web.serverCpuSeconds)} | ${fmt(othersCores(r), 2)} |`);
  }
  return rows;
}

function componentsTable(res: Results): string[] {
  const out = ['## CPU-ms per page by component', '',
    'Crawler process: every thread, exact (wait4). Its split by thread is sampled from /proc once a second (Node 20 names all its threads "node"; ' +
    'the parse pool\'s workers name themselves parse-worker; "other node threads" are libuv\'s pool — LZ4/zlib, LevelDB, fs — and V8\'s GC/compiler helpers; chdb\'s threads carry ClickHouse\'s names); ' +
    '"unsampled" is CPU the samples missed (threads\' last second, short-lived threads). Services: CPU of the service process during the crawl (shared services: other users count too).', '',
    '| run | pages | crawler process | main thread | parse workers | other node threads | chdb / native threads | unsampled | broker | registry | ClickHouse server | web server | total |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|'];
  const runs = allRuns(res);
  for (const r of runs) {
    const th = r.threads;
    const sampled = th ? th.mainThread + (th.parseWorkers ?? 0) + th.otherNodeThreads + th.chdbAndNative : undefined;
    const svc = r.servicesCpuSeconds;
    const parts = [r.cpuSeconds, svc?.kafka, svc?.['schema-registry'], svc?.clickhouse, r.web.serverCpuSeconds];
    const total = parts.reduce<number>((n, v) => n + (v ?? 0), 0);
    const ms = (v: number | undefined) => fmt(msPerPage(v, r.pages), 2);
    out.push(`| ${r.name} | ${r.pages} | ${ms(r.cpuSeconds)} | ${ms(th?.mainThread)} | ${ms(th?.parseWorkers)} | ${ms(th?.otherNodeThreads)} | ${ms(th?.chdbAndNative)} | ` +
      `${sampled === undefined ? '—' : ms(Math.max(0, r.cpuSeconds - sampled))} | ${ms(svc?.kafka)} | ${ms(svc?.['schema-registry'])} | ${ms(svc?.clickhouse)} | ${ms(r.web.serverCpuSeconds)} | ${ms(total)} |`);
  }
  out.push('');
  for (const r of runs) {
    if (r.threads?.top.length) {
      out.push(`- ${r.name}, busiest threads (CPU s; #tid): ${r.threads.top.map((t) => `${t.tid === r.threads!.pid ? 'main' : t.name} #${t.tid} ${fmt(t.cpuSeconds, 1)}`).join(', ')}`);
    }
  }
  out.push('');
  return out;
}

function recordsSection(res: Results): string[] {
  const emb = res.crawls.embedded;
  const dup = res.crawls['embedded-template-heavy'];
  const out: string[] = [];
  if (emb?.logCounts) {
    const c = emb.logCounts;
    out.push('## Records through the topology (embedded crawl, from the data directory: committed log ends per topic partition)', '',
      '| topic | records | per page |', '|---|---:|---:|',
      ...Object.entries(c.perTopic).sort((a, b) => b[1] - a[1]).map(([t, n]) => `| ${t} | ${n} | ${fmt(n / Math.max(1, emb.pages), 2)} |`),
      `| **all topics** | **${c.total}** | **${fmt(c.total / Math.max(1, emb.pages), 2)}** |`, '');
  }
  if (dup?.logCounts) {
    const d = dup.logCounts.duplicates;
    out.push(`Template-heavy web (every page the same small vocabulary under one template; ${dup.hosts} hosts × ${dup.pagesPerHost} pages, ${dup.pages} fetched): ` +
      `the duplicates topic holds ${d.records} records (${d.exact} exact, ${d.near} near) about ${d.pages} distinct pages = ${fmt(ratio(d.records, d.pages), 2)} records per near-duplicate page; ` +
      `${fmt(dup.logCounts.total / Math.max(1, dup.pages), 2)} records per page through the topology.`, '');
  }
  return out;
}

function engineSection(res: Results): string[] {
  const e = res.engine;
  if (!e) return [];
  return ['## Engine pass-through (embedded runtime)', '',
    `${e.records} records over ${e.partitions} partitions: ${e.recordsPerCpuSecond} records per CPU-second (${e.cpuMicrosPerRecord} µs/record, all threads), ` +
    `${e.recordsPerSecond} records/s wall (${e.wallSeconds} s), peak RSS ${fmt(e.peakRssMb, 0)} MB${engineRuns(e)}. ${e.what}. ` +
    'A CPU cost measured alone: other tenants of a VM only ever add to it, so the fastest run is the estimate, as for the parse ceiling.', ''];
}

function ceilingsSection(res: Results, share: number | null): string[] {
  if (!res.ceilings) return [];
  const f = res.ceilings.fetch;
  const p = res.ceilings.parse;
  return ['## Ceilings of the testbed', '',
    '| ceiling | pages/s | µs per page | embedded crawl as share |', '|---|---:|---:|---:|',
    `| fetch only (undici, c=64, every page once, no parsing; cheap server) | ${f.pagesPerSecond} | ${f.wallMicrosPerRequest} wall, ${f.cpuMicrosPerRequest} client CPU | ${fmt(share, 2)} |`,
    `| parse only (analyzeBody on stored bench pages, one core) | ${p.benchPages.pagesPerSecond} | ${p.benchPages.cpuMicrosPerPage} CPU (${p.benchPages.microsPerPage} wall) | |`,
    `| parse only (benchExtract() sample articles) | ${p.sampleArticles.pagesPerSecond} | ${p.sampleArticles.microsPerPage} | |`,
    '', `Fetch ceiling: ${f.errors} errors, the server used ${fmt(f.serverCpuSeconds, 2)} CPU s (${fmt(msPerPage(f.serverCpuSeconds, f.requests), 3)} ms per page); ` +
    `bench pages average ${p.benchPages.averagePageBytes} bytes, ${p.benchPages.linksPerPage} links; compressing a page as the fetch stage stores it costs ${p.benchPages.compressCpuMicrosPerPage} µs, restoring it ${p.benchPages.decompressCpuMicrosPerPage ?? '—'} µs.`, ''];
}

export function renderMarkdown(res: Results, levers: LeversFile): string {
  const c = (res.comparison ??= compare(res));
  const m = res.machine;
  const ref = c.crawleeReference ? res.crawls[c.crawleeReference] : undefined;
  const out: string[] = [
    `# crawlstream benchmark — ${m.date}`,
    '',
    `Machine: ${m.cpuModel}, ${m.logicalCores} logical cores${m.cpuQuotaCores ? ` (cgroup quota ${m.cpuQuotaCores})` : ''}, ${m.ramGb} GB RAM, ` +
      `Node ${m.node}, ${m.os}; commit ${m.gitCommit.slice(0, 12)}${m.gitDirty ? ' (with uncommitted changes)' : ''}; ` +
      `Crawlee ${m.crawleeVersion ?? 'not installed'}; load average at start ${m.loadAverageAtStart.join(' ')}; ` +
      `RSS/CPU via ${m.gnuTime ? 'GNU time (wait4)' : '/proc polling'}.`,
    `Sections: ${res.options.sections.join(', ')}.${res.durationSeconds ? ` Took ${fmt(res.durationSeconds / 60)} min.` : ''} ` +
      'Every crawl runs against bench/bench-server.ts: pages pre-rendered and served from memory, a server that costs almost nothing per page.',
    '',
    '## Targets (issue 11)',
    '',
    '| figure | value | target | | how |',
    '|---|---:|---:|:-:|---|',
    ...c.targets.map((t) => `| ${t.name} | ${fmt(t.value, 2)} | ${t.target} | ${mark(t.ok)} | ${t.how} |`),
    '',
    ...renderBudget(res),
    `## Crawls (ratios against ${c.crawleeReference ?? 'Crawlee: not measured'})`,
    '',
    ...crawlTable(res, ref),
    '',
    ...loadWarning(res),
  ];
  for (const r of allRuns(res)) if (r.notes?.length) out.push(`- ${r.name}: ${r.notes.join('; ')}`);
  for (const f of res.failed ?? []) out.push(`- FAILED ${f}`);
  if (res.services) out.push(`- Kafka services (${res.services.brokers}, ${res.services.registry}, ${res.services.clickhouse}): ${res.services.note}.`);
  for (const r of Object.values(res.crawls)) {
    const x = r.replay;
    if (x) out.push(`- replay of ${r.name}'s \`fetched\` through parse and clickhouse-sink (\`bin/crawlstream replay --from fetched --processors parse,clickhouse-sink\`, nothing refetched): ` +
      `${x.records} records in ${fmt(x.wallSeconds)} s = ${fmt(x.recordsPerSecond)} records/s, peak RSS ${fmt(x.peakRssMb, 0)} MB, ${fmt(x.cpuSecondsPer1000Records, 2)} CPU s / 1000 records.`);
  }
  out.push('', '### How the comparison is configured', '', ...c.fairness.map((f) => `- ${f}`), '');
  out.push(...componentsTable(res), ...kafkaCostSection(res), ...freshnessSection(res.freshness), ...recordsSection(res), ...engineSection(res), ...ceilingsSection(res, c.ratios.embeddedShareOfFetchCeiling));
  if (res.stages) out.push(...stagesSection(res));
  for (const l of [res.large, res.largeDeep]) if (l) out.push(...largeSection(l));
  if (res.profile) out.push(...profileSection(res));
  out.push(...renderLevers(levers));
  return out.join('\n') + '\n';
}

function largeSection(l: CrawlRun): string[] {
  const series = l.rssSeries ?? [];
  const at = (q: number) => series[Math.min(series.length - 1, Math.floor(q * series.length))]?.rssMb;
  return [`## Large run, ${l.hosts} hosts × ${l.pagesPerHost} pages (memory stays bounded?)`, '',
    `${l.hosts} hosts × ${l.pagesPerHost} pages: ${l.pages} pages in ${fmt(l.wallSeconds)} s = ${fmt(l.pagesPerSecond)} pages/s; peak RSS ${fmt(l.peakRssMb, 0)} MB; ` +
    `${fmt(l.cpuSecondsPer1000Pages, 2)} CPU s / 1000 pages. RSS at 25/50/75/100 % of the run: ${[0.25, 0.5, 0.75, 0.999].map((q) => fmt(at(q), 0)).join(' / ')} MB ` +
    `(series every second in the JSON).${l.notes ? ` Notes: ${l.notes.join('; ')}` : ''}`, ''];
}

function profileSection(res: Results): string[] {
  const p = res.profile!;
  return ['## Where the embedded crawl spends its time (node --cpu-prof, main thread self time)', '',
    `${p.pages} pages at ${fmt(p.pagesPerSecond)} pages/s under the profiler; ${p.sampledMs} ms sampled, ${fmt(p.idleShare * 100)} % idle. Profile: ${p.file}`, '',
    '| module | self ms | share |', '|---|---:|---:|', ...p.topModules.map((x) => `| ${x.name} | ${x.selfMs} | ${fmt(x.share * 100)} % |`), '',
    '| function | self ms | share |', '|---|---:|---:|', ...p.topFunctions.map((x) => `| \`${x.name}\` | ${x.selfMs} | ${fmt(x.share * 100)} % |`), '',
    'Self time charged to the nearest crawlstream function on the stack (its own code plus the library, Node and V8 work it calls directly):', '',
    '| crawlstream function | ms | share |', '|---|---:|---:|', ...p.topProjectCallers.map((x) => `| \`${x.name}\` | ${x.selfMs} | ${fmt(x.share * 100)} % |`), ''];
}

function stagesSection(res: Results): string[] {
  const s = res.stages!;
  const f = res.ceilings?.fetch;
  const p = res.ceilings?.parse;
  const r2 = (n: number) => Math.round(n * 100) / 100;
  const rows: [string, string, string][] = [
    ['normalize', `${s.normalize.microsPerUrl}`, `${s.normalize.what}; through the test driver ${s.normalize.driverMicrosPerRecord} µs/record`],
    ['dedup', `${s.dedup.microsPerUrl}`, `${s.dedup.what}, ${fmt(s.dedup.newShare * 100)} % new; through the test driver ${s.dedup.driverMicrosPerRecord} µs/record`],
    ['schedule', `${s.schedule.microsPerReleasedFetch}`, `test driver, per released fetch (${s.schedule.what}), ${s.schedule.released} fetches over ${s.schedule.hosts} hosts`],
    ['fetch', f ? `${f.cpuMicrosPerRequest}` : '—', f ? `client CPU per request in the fetch ceiling (wall ${f.wallMicrosPerRequest} µs/request at c=64)` : 'run ceilings'],
    ['parse', p ? `${p.benchPages.cpuMicrosPerPage}` : '—', 'analyzeBody per stored bench page (parse ceiling)'],
    ['sink', `${r2(1e6 / s.sink.chdbRowsPerSecond)}`, `${s.sink.chdbRowsPerSecond} rows/s into chdb` + (s.sink.serverRowsPerSecond ? `, ${s.sink.serverRowsPerSecond} rows/s into the ClickHouse server` : ', server not measured (CLICKHOUSE_URL unset)')],
    ['Avro discovered-url', `${s.avro.discoveredUrl.encodeMicros} / ${s.avro.discoveredUrl.decodeMicros}`, `encode / decode, ${s.avro.discoveredUrl.bytes} bytes`],
    ['Avro fetched (18 KB body)', `${s.avro.fetched18KB.encodeMicros} / ${s.avro.fetched18KB.decodeMicros}`, `encode / decode, ${s.avro.fetched18KB.bytes} bytes`],
    ['LevelStore put / get', `${s.levelStore.putMicros} / ${s.levelStore.getHitMicros}`, `get from overlay ${s.levelStore.getFromOverlayMicros}, miss ${s.levelStore.getMissMicros}; commit ${s.levelStore.commitMicrosPerWrite} µs/write in a ${s.levelStore.entries}-write batch, ${s.levelStore.commitOf100PutsMicros} µs per 100-put commit`],
    ['test driver itself', `${s.driverBaseline.microsPerRecord}`, s.driverBaseline.what],
  ];
  const out = ['## Stage costs (µs per record, one process)', '', '| stage | µs | how |', '|---|---:|---|', ...rows.map((r) => `| ${r.join(' | ')} |`), ''];
  const z = res.seenSet;
  if (z) {
    out.push(`Seen-set at ${(z.urls / 1e6).toFixed(0)} M URLs: Bloom ${fmt(z.bloomBytesPerUrl, 2)} bytes/URL (${fmt(z.bloomBytes / 2 ** 20)} MiB), ` +
      `heap+external growth ${fmt(z.heapGrowthBytesPerUrl, 2)} bytes/URL, RSS growth ${fmt(z.rssGrowthBytesPerUrl, 2)} bytes/URL; ${z.lookupsPerSecond} lookups/s with fingerprinting ` +
      `(${z.lookupsPerSecondWithoutFingerprint}/s bare), false positives ${fmt(z.falsePositiveRate * 100, 2)} % (each costs one LevelDB read). The exact 64-bit set is on disk in LevelDB.`, '');
  }
  return out;
}
