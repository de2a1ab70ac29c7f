// Results of one benchmark run, the ratios against Crawlee measured in the same run, the targets they
// are held to, and the Markdown rendering.
import type { ProfileSummary } from './cpu-profile.js';
import type { CrawlRun } from './crawls.js';
import type { Machine } from './machine.js';

export interface Results {
  machine: Machine;
  options: { sections: string[]; hosts: number; pagesPerHost: number; large: { hosts: number; pages: number } };
  crawls: Record<string, CrawlRun>;
  services?: { brokers: string; registry: string; clickhouse: string; startedByBench: boolean; note: string };
  ceilings?: {
    fetch: { pagesPerSecond: number; wallMicrosPerRequest: number; cpuMicrosPerRequest: number; errors: number; serverCpuSeconds: number; averagePageBytes: number; requests: number };
    parse: { benchPages: { pagesPerSecond: number; microsPerPage: number; linksPerPage: number; averagePageBytes: number }; sampleArticles: { pagesPerSecond: number; microsPerPage: number } };
  };
  stages?: Record<string, any>;
  seenSet?: Record<string, any>;
  profile?: ProfileSummary & { file: string; pagesPerSecond: number; pages: number };
  large?: CrawlRun;
  comparison?: Comparison;
  /** Sections or runs that failed, with why. */
  failed?: string[];
  durationSeconds?: number;
}

export interface Target {
  name: string;
  value: number | null;
  target: string;
  ok: boolean | null;
}

export interface Comparison {
  /** The Crawlee configuration the ratios use: the faster of the two measured. */
  crawleeReference: string | null;
  ratios: Record<string, number | null>;
  targets: Target[];
  fairness: string[];
}

const r2 = (n: number) => Math.round(n * 100) / 100;
const ratio = (a: number | undefined, b: number | undefined) => (a !== undefined && b !== undefined && b > 0 ? r2(a / b) : null);

export function compare(res: Results): Comparison {
  const crawlees = ['crawlee-fixed', 'crawlee-autoscaled'].map((n) => res.crawls[n]).filter(Boolean);
  const ref = crawlees.sort((a, b) => b.pagesPerSecond - a.pagesPerSecond)[0];
  const emb = res.crawls.embedded;
  const k1 = res.crawls['kafka-1w'];
  const k2 = res.crawls['kafka-2w'];
  const fetchCeiling = res.ceilings?.fetch.pagesPerSecond;
  const ratios = {
    embeddedPagesPerSecondVsCrawlee: ratio(emb?.pagesPerSecond, ref?.pagesPerSecond),
    embeddedPeakRssVsCrawlee: ratio(emb?.peakRssMb, ref?.peakRssMb),
    embeddedCpuPer1000PagesVsCrawlee: ratio(emb?.cpuSecondsPer1000Pages, ref?.cpuSecondsPer1000Pages),
    embeddedShareOfFetchCeiling: ratio(emb?.pagesPerSecond, fetchCeiling),
    embeddedShareOfParseCeiling: ratio(emb?.pagesPerSecond, res.ceilings?.parse.benchPages.pagesPerSecond),
    crawleeShareOfFetchCeiling: ratio(ref?.pagesPerSecond, fetchCeiling),
    kafka1PagesPerSecondVsCrawlee: ratio(k1?.pagesPerSecond, ref?.pagesPerSecond),
    kafka2PagesPerSecondVsCrawlee: ratio(k2?.pagesPerSecond, ref?.pagesPerSecond),
    kafka2VsKafka1: ratio(k2?.pagesPerSecond, k1?.pagesPerSecond),
  };
  const t = (name: string, value: number | null | undefined, target: string, ok: (v: number) => boolean): Target =>
    ({ name, value: value ?? null, target, ok: value === null || value === undefined ? null : ok(value) });
  const seen = res.seenSet?.bloomBytesPerUrl as number | undefined;
  return {
    crawleeReference: ref?.name ?? null,
    ratios,
    targets: [
      t('embedded pages/s ÷ Crawlee pages/s', ratios.embeddedPagesPerSecondVsCrawlee, '≥ 5×', (v) => v >= 5),
      t('embedded peak RSS ÷ Crawlee peak RSS', ratios.embeddedPeakRssVsCrawlee, '≤ 0.25', (v) => v <= 0.25),
      t('embedded pages/s ÷ fetch-only ceiling', ratios.embeddedShareOfFetchCeiling, '≥ 0.40', (v) => v >= 0.4),
      t('Kafka 1 worker pages/s ÷ Crawlee pages/s', ratios.kafka1PagesPerSecondVsCrawlee, '≥ 2×', (v) => v >= 2),
      t('seen-set RAM bytes per URL at 10M', seen, '≤ 2', (v) => v <= 2),
    ],
    fairness: [
      'Same bench web (fresh server process per crawler, pages rendered per request), same seeds (every origin\'s root), same machine, one run.',
      'Pages are counted by the server (robots.txt excluded); pages/s = pages ÷ wall time of the crawler process, start-up and shutdown included.',
      'crawlstream: defaults with --default-delay-ms 0: one request in flight per host (its politeness, not switchable), ≤128 fetches in flight, results stored in embedded ClickHouse + LevelDB on disk.',
      'Crawlee CheerioCrawler: respectRobotsTxtFile, maxConcurrency 64, no per-host delay (its default: several requests to one host at once), default retries, MemoryStorage without persistence, log off; enqueueLinks strategy "all" limited to the bench origins; the handler reads the title and stores nothing.',
      'Crawlee is measured twice: minConcurrency = 64 ("fixed") and its default autoscaling from 1 to 64 ("autoscaled"); ratios use the faster of the two.',
      'The web server runs in its own process and is not pinned; on a small machine it competes with the crawler for cores (its CPU use is shown per run).',
      'Before each measured crawl the harness waits (up to 2 min) for the machine to be quiet; CPU that other processes used during a run is shown so a disturbed run can be told apart.',
    ],
  };
}

const fmt = (v: number | null | undefined, d = 1) => (v === null || v === undefined ? '—' : Number(v).toFixed(d));
const mark = (ok: boolean | null) => (ok === null ? '—' : ok ? '✓' : '✗');

function crawlTable(res: Results, ref: CrawlRun | undefined): string[] {
  const rows = ['| run | pages (server) | wall s | pages/s | ×Crawlee | active-window pages/s | peak RSS MB | ×Crawlee | CPU s / 1000 pages | peak req/s to one host | max conns per host / total | robots.txt reqs | server CPU s | other procs CPU s |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|'];
  for (const r of Object.values(res.crawls)) {
    rows.push(`| ${r.name} | ${r.pages} | ${fmt(r.wallSeconds)} | ${fmt(r.pagesPerSecond)} | ${fmt(ratio(r.pagesPerSecond, ref?.pagesPerSecond), 2)} | ` +
      `${fmt(r.activePagesPerSecond)} | ${fmt(r.peakRssMb, 0)} | ${fmt(ratio(r.peakRssMb, ref?.peakRssMb), 2)} | ${fmt(r.cpuSecondsPer1000Pages, 2)} | ` +
      `${r.web.peakRequestsPerHostPerSecond} | ${r.web.maxConnectionsPerHost} / ${r.web.maxConnectionsTotal} | ${r.web.robotsRequests} | ${fmt(r.web.serverCpuSeconds)} | ${fmt(r.backgroundCpuSeconds)} |`);
  }
  return rows;
}

export function renderMarkdown(res: Results): string {
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
    `Bench web: ${res.options.hosts} hosts × ${res.options.pagesPerHost} pages (~18 KB, ~25 links each). Sections: ${res.options.sections.join(', ')}.` +
      (res.durationSeconds ? ` Took ${fmt(res.durationSeconds / 60)} min.` : ''),
    '',
    '## Targets',
    '',
    '| target | value | goal | |',
    '|---|---:|---:|:-:|',
    ...c.targets.map((t) => `| ${t.name} | ${fmt(t.value, 2)} | ${t.target} | ${mark(t.ok)} |`),
    '',
    `## Crawls (ratios against ${c.crawleeReference ?? 'Crawlee: not measured'})`,
    '',
    ...crawlTable(res, ref),
    '',
  ];
  for (const r of Object.values(res.crawls)) if (r.notes?.length) out.push(`- ${r.name}: ${r.notes.join('; ')}`);
  for (const f of res.failed ?? []) out.push(`- FAILED ${f}`);
  if (res.services) out.push(`- Kafka services (${res.services.brokers}, ${res.services.registry}, ${res.services.clickhouse}): ${res.services.note}.`);
  for (const r of Object.values(res.crawls)) {
    const x = r.replay;
    if (x) out.push(`- replay of ${r.name}'s \`fetched\` through parse and sink (\`bin/crawlstream replay --from fetched --processors parse,sink\`, nothing refetched): ` +
      `${x.records} records in ${fmt(x.wallSeconds)} s = ${fmt(x.recordsPerSecond)} records/s re-parsed and re-sunk, peak RSS ${fmt(x.peakRssMb, 0)} MB, ${fmt(x.cpuSecondsPer1000Records, 2)} CPU s / 1000 records.`);
  }
  out.push('', '### How the comparison is configured', '', ...c.fairness.map((f) => `- ${f}`), '');
  if (res.ceilings) {
    const f = res.ceilings.fetch;
    const p = res.ceilings.parse;
    out.push('## Ceilings of the testbed', '',
      '| ceiling | pages/s | µs per page | embedded crawl as share |', '|---|---:|---:|---:|',
      `| fetch only (undici, c=64, every page once, no parsing) | ${f.pagesPerSecond} | ${f.wallMicrosPerRequest} wall, ${f.cpuMicrosPerRequest} client CPU | ${fmt(c.ratios.embeddedShareOfFetchCeiling, 2)} |`,
      `| parse only (decodeHtml + extractPage on bench pages, one core) | ${p.benchPages.pagesPerSecond} | ${p.benchPages.microsPerPage} | ${fmt(c.ratios.embeddedShareOfParseCeiling, 2)} |`,
      `| parse only (benchExtract() sample articles) | ${p.sampleArticles.pagesPerSecond} | ${p.sampleArticles.microsPerPage} | |`,
      '', `Fetch ceiling: ${f.errors} errors, server used ${fmt(f.serverCpuSeconds)} CPU s; bench pages average ${p.benchPages.averagePageBytes} bytes, ${p.benchPages.linksPerPage} links.`, '');
  }
  if (res.stages) out.push(...stagesSection(res));
  if (res.large) {
    const l = res.large;
    const series = l.rssSeries ?? [];
    const at = (q: number) => series[Math.min(series.length - 1, Math.floor(q * series.length))]?.rssMb;
    out.push('## Large run (memory stays bounded?)', '',
      `${l.hosts} hosts × ${l.pagesPerHost} pages: ${l.pages} pages in ${fmt(l.wallSeconds)} s = ${fmt(l.pagesPerSecond)} pages/s; peak RSS ${fmt(l.peakRssMb, 0)} MB; ` +
      `${fmt(l.cpuSecondsPer1000Pages, 2)} CPU s / 1000 pages. RSS at 25/50/75/100 % of the run: ${[0.25, 0.5, 0.75, 0.999].map((q) => fmt(at(q), 0)).join(' / ')} MB ` +
      `(series every second in the JSON).${l.notes ? ` Notes: ${l.notes.join('; ')}` : ''}`, '');
  }
  if (res.profile) {
    const p = res.profile;
    out.push('## Where the embedded crawl spends its time (node --cpu-prof, main thread self time)', '',
      `${p.pages} pages at ${fmt(p.pagesPerSecond)} pages/s under the profiler; ${p.sampledMs} ms sampled, ${fmt(p.idleShare * 100)} % idle. Profile: ${p.file}`, '',
      '| module | self ms | share |', '|---|---:|---:|', ...p.topModules.map((x) => `| ${x.name} | ${x.selfMs} | ${fmt(x.share * 100)} % |`), '',
      '| function | self ms | share |', '|---|---:|---:|', ...p.topFunctions.map((x) => `| \`${x.name}\` | ${x.selfMs} | ${fmt(x.share * 100)} % |`), '',
      'Self time charged to the nearest crawlstream function on the stack (its own code plus the library, Node and V8 work it calls directly):', '',
      '| crawlstream function | ms | share |', '|---|---:|---:|', ...p.topProjectCallers.map((x) => `| \`${x.name}\` | ${x.selfMs} | ${fmt(x.share * 100)} % |`), '');
  }
  return out.join('\n') + '\n';
}

function stagesSection(res: Results): string[] {
  const s = res.stages!;
  const f = res.ceilings?.fetch;
  const p = res.ceilings?.parse;
  const rows: [string, string, string][] = [
    ['normalize', `${s.normalize.microsPerUrl}`, `${s.normalize.what}; through the test driver ${s.normalize.driverMicrosPerRecord} µs/record`],
    ['dedup', `${s.dedup.microsPerUrl}`, `${s.dedup.what}, ${fmt(s.dedup.newShare * 100)} % new; through the test driver ${s.dedup.driverMicrosPerRecord} µs/record`],
    ['schedule', `${s.schedule.microsPerReleasedFetch}`, `test driver, per released fetch (${s.schedule.what}), ${s.schedule.released} fetches over ${s.schedule.hosts} hosts`],
    ['fetch', f ? `${f.cpuMicrosPerRequest}` : '—', f ? `client CPU per request in the fetch ceiling (wall ${f.wallMicrosPerRequest} µs/request at c=64)` : 'run ceilings'],
    ['parse', p ? `${p.benchPages.microsPerPage}` : '—', 'decodeHtml + extractPage per bench page (parse ceiling)'],
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
