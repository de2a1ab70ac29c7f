// Results of one benchmark run and the targets of issue 11 they are judged by: every ratio against the
// Crawlee peer takes the best Crawlee run of the same session, on the same machine, against the same
// cheap bench web. The Markdown rendering is in render.ts.
import type { ProfileSummary } from './cpu-profile.js';
import type { CrawlRun } from './crawls.js';
import type { Machine } from './machine.js';
import type { FreshnessResult } from './freshness-report.js';

/** ", the fastest of N runs (median …)" for an engine result of several runs. */
export function engineRuns(e: EngineResult): string {
  const runs = [...(e.runsMicrosPerRecord ?? [])].sort((a, b) => a - b);
  if (runs.length < 2) return '';
  const mid = runs.length >> 1;
  const median = runs.length % 2 ? runs[mid] : (runs[mid - 1] + runs[mid]) / 2;
  return `, the fastest of ${runs.length} runs (median ${Math.round(median * 100) / 100}, slowest ${runs[runs.length - 1]} µs/record)`;
}

export interface EngineResult {
  records: number;
  partitions: number;
  wallSeconds: number;
  recordsPerSecond: number;
  cpuSeconds: number;
  recordsPerCpuSecond: number;
  cpuMicrosPerRecord: number;
  what: string;
  peakRssMb: number;
  /** µs a record of every run, when the bench ran it more than once (this result is the fastest). */
  runsMicrosPerRecord?: number[];
}

export interface Results {
  machine: Machine;
  options: {
    sections: string[];
    hosts: number;
    pagesPerHost: number;
    seeds: number;
    large: { hosts: number; pages: number };
    duplicatesWeb: { hosts: number; pages: number };
    crawlee: { min: number; max: number }[];
  };
  crawls: Record<string, CrawlRun>;
  services?: { brokers: string; registry: string; clickhouse: string; startedByBench: boolean; note: string };
  ceilings?: {
    fetch: { pagesPerSecond: number; wallMicrosPerRequest: number; cpuMicrosPerRequest: number; errors: number; serverCpuSeconds: number; averagePageBytes: number; requests: number };
    parse: {
      benchPages: { what: string; pagesPerSecond: number; microsPerPage: number; cpuMicrosPerPage: number; compressCpuMicrosPerPage: number; decompressCpuMicrosPerPage?: number; linksPerPage: number; averagePageBytes: number };
      sampleArticles: { pagesPerSecond: number; microsPerPage: number };
    };
  };
  engine?: EngineResult;
  stages?: Record<string, any>;
  seenSet?: Record<string, any>;
  focus?: FocusResult;
  freshness?: FreshnessResult;
  profile?: ProfileSummary & { file: string; pagesPerSecond: number; pages: number; run?: CrawlRun };
  /** 100,000 pages on 10 times the hosts of the 10k web (2,000 × 50 by default). */
  large?: CrawlRun;
  /** The same number of pages on the 10k web's hosts, 10 times deeper (200 × 500 by default). */
  largeDeep?: CrawlRun;
  comparison?: Comparison;
  /** Sections or runs that failed, with why. */
  failed?: string[];
  durationSeconds?: number;
}

/** bench/focus.ts: a focused crawl's figures (issue 21). */
export interface FocusResult {
  parse: { pages: number; plainMicrosPerPage: number; focusMicrosPerPage: number; overheadMicrosPerPage: number; medianOverheadMicrosPerPage: number; what: string };
  web: { pages: number; onTopic: number; seeds: number; hosts: number };
  plain: { pages: number; harvest: number; coverage: number; wallSeconds: number };
  focused: { pages: number; harvest: number; coverage: number; wallSeconds: number };
  harvestRatio: number | null;
  what: string;
}

export interface Target {
  name: string;
  value: number | null;
  target: string;
  ok: boolean | null;
  /** Where the value comes from, or why there is none. */
  how: string;
}

export interface Comparison {
  /** The Crawlee run the ratios use: the fastest of those measured in this run. */
  crawleeReference: string | null;
  ratios: Record<string, number | null>;
  targets: Target[];
  fairness: string[];
}

const r2 = (n: number) => Math.round(n * 100) / 100;
export const ratio = (a: number | undefined, b: number | undefined) => (a !== undefined && b !== undefined && b > 0 ? r2(a / b) : null);

/** The fastest Crawlee run (pages/s) among those that fetched the whole web. */
export function bestCrawlee(crawls: Record<string, CrawlRun>): CrawlRun | undefined {
  return bestOf(crawls, false);
}

/** The fastest Crawlee run over HTTPS. */
export function bestCrawleeHttps(crawls: Record<string, CrawlRun>): CrawlRun | undefined {
  return bestOf(crawls, true);
}

function bestOf(crawls: Record<string, CrawlRun>, https: boolean): CrawlRun | undefined {
  const runs = Object.values(crawls).filter((r) => r.name.startsWith('crawlee') && (r.https ?? false) === https);
  const complete = runs.filter((r) => r.web.distinctPages >= r.hosts * r.pagesPerHost);
  return (complete.length ? complete : runs).sort((a, b) => b.pagesPerSecond - a.pagesPerSecond)[0];
}

/** CPU milliseconds per page of one component, or null when it was not measured. */
export const msPerPage = (seconds: number | undefined, pages: number) => (seconds === undefined || pages <= 0 ? null : r2((seconds * 1000) / pages));

export function compare(res: Results): Comparison {
  const ref = bestCrawlee(res.crawls);
  const refHttps = bestCrawleeHttps(res.crawls);
  const embHttps = res.crawls['embedded-https'];
  const emb = res.crawls.embedded;
  const dup = res.crawls['embedded-template-heavy'];
  const k1 = res.crawls['kafka-1w'];
  const idle = { embedded: res.crawls['hostidle-embedded'], kafka: res.crawls['hostidle-kafka-1w'] };
  const large = res.large;
  const deep = res.largeDeep;
  const fetchCeiling = res.ceilings?.fetch.pagesPerSecond;
  const counts = emb?.logCounts;
  const dups = dup?.logCounts?.duplicates;
  const ratios = {
    embeddedPagesPerSecondVsCrawlee: ratio(emb?.pagesPerSecond, ref?.pagesPerSecond),
    embeddedHttpsPagesPerSecondVsCrawlee: ratio(embHttps?.pagesPerSecond, refHttps?.pagesPerSecond),
    embeddedPeakRssVsCrawlee: ratio(emb?.peakRssMb, ref?.peakRssMb),
    embeddedCpuPer1000PagesVsCrawlee: ratio(emb?.cpuSecondsPer1000Pages, ref?.cpuSecondsPer1000Pages),
    embeddedShareOfFetchCeiling: ratio(emb?.pagesPerSecond, fetchCeiling),
    crawleeShareOfFetchCeiling: ratio(ref?.pagesPerSecond, fetchCeiling),
    kafka1PagesPerSecondVsCrawlee: ratio(k1?.pagesPerSecond, ref?.pagesPerSecond),
    recordsPerPage: counts && emb ? ratio(counts.total, emb.pages) : null,
    duplicateRecordsPerNearDuplicatePage: dups && dups.pages > 0 ? ratio(dups.records, dups.pages) : null,
    brokerCpuMsPerPage: k1 ? msPerPage(k1.servicesCpuSeconds?.kafka, k1.pages) : null,
    largePeakRssVsEmbedded: ratio(large?.peakRssMb, emb?.peakRssMb),
    largePagesPerSecondVsEmbedded: ratio(large?.pagesPerSecond, emb?.pagesPerSecond),
    deepPeakRssVsEmbedded: ratio(deep?.peakRssMb, emb?.peakRssMb),
    deepPagesPerSecondVsEmbedded: ratio(deep?.pagesPerSecond, emb?.pagesPerSecond),
    hostIdleP50MsKafka: idle.kafka?.web.hostGapMs?.p50 ?? null,
    hostIdleP50MsEmbedded: idle.embedded?.web.hostGapMs?.p50 ?? null,
  };
  const t = (name: string, value: number | null | undefined, target: string, ok: (v: number) => boolean, how: string): Target =>
    ({ name, value: value ?? null, target, ok: value === null || value === undefined ? null : ok(value), how });
  const e = res.engine;
  const parse = res.ceilings?.parse.benchPages;
  return {
    crawleeReference: ref?.name ?? null,
    ratios,
    targets: [
      t('engine: pass-through records/s per core (embedded log, commits)', e?.recordsPerCpuSecond, '≥ 200000 (≤ 5 µs/record)', (v) => v >= 200_000,
        e ? `${e.records} records / ${e.cpuSeconds} CPU s = ${e.cpuMicrosPerRecord} µs/record${engineRuns(e)}` : 'section engine not run'),
      t('records per page through the topology', ratios.recordsPerPage, '≤ 16', (v) => v <= 16,
        counts ? `${counts.total} records in all topics / ${emb.pages} pages` : 'embedded crawl not run'),
      t('duplicate records per near-duplicate page', ratios.duplicateRecordsPerNearDuplicatePage, '1', (v) => v <= 1,
        dups ? `${dups.records} records in duplicates / ${dups.pages} distinct pages reported (template-heavy web, ${dup!.pages} pages)` : 'section duplicates not run'),
      t('parse µs per bench page, one core', parse?.cpuMicrosPerPage, '≤ 300', (v) => v <= 300,
        parse ? parse.what : 'section ceilings not run'),
      t('embedded pages/s ÷ Crawlee pages/s', ratios.embeddedPagesPerSecondVsCrawlee, '≥ 5', (v) => v >= 5,
        emb && ref ? `${emb.pagesPerSecond} / ${ref.pagesPerSecond} (${ref.name})` : 'needs sections embedded and crawlee'),
      t('HTTPS: embedded pages/s ÷ Crawlee pages/s', ratios.embeddedHttpsPagesPerSecondVsCrawlee, '≥ 4', (v) => v >= 4,
        embHttps && refHttps ? `${embHttps.pagesPerSecond} / ${refHttps.pagesPerSecond} (${refHttps.name})` : 'needs section https'),
      t('embedded pages/s ÷ fetch-only ceiling (cheap server)', ratios.embeddedShareOfFetchCeiling, '≥ 0.10', (v) => v >= 0.1,
        emb && fetchCeiling ? `${emb.pagesPerSecond} / ${fetchCeiling}` : 'needs sections embedded and ceilings'),
      t('Kafka, 1 worker: pages/s ÷ Crawlee', ratios.kafka1PagesPerSecondVsCrawlee, '≥ 2', (v) => v >= 2,
        k1 && ref ? `${k1.pagesPerSecond} / ${ref.pagesPerSecond}` : 'needs sections kafka and crawlee'),
      t('broker CPU-ms per page', ratios.brokerCpuMsPerPage, '≤ 1', (v) => v <= 1,
        k1?.servicesCpuSeconds?.kafka !== undefined ? brokerHow(k1) : 'section kafka not run'),
      t('host idle between requests, p50 ms, Kafka 1 worker (5 hosts × 100 pages, delay 0)', ratios.hostIdleP50MsKafka, '≤ 200', (v) => v <= 200,
        idle.kafka ? hostIdleHow(idle.kafka, idle.embedded) : 'section hostidle not run'),
      t('peak RSS, whole crawl process ÷ Crawlee\'s', ratios.embeddedPeakRssVsCrawlee, '≤ 0.5', (v) => v <= 0.5,
        emb && ref ? `${emb.peakRssMb} MB / ${ref.peakRssMb} MB, wait4 ru_maxrss (threads and chdb included)` : 'needs sections embedded and crawlee'),
      t('peak RSS at 100k pages ÷ at 10k pages', ratios.largePeakRssVsEmbedded, '≤ 1.15', (v) => v <= 1.15,
        large && emb ? `${large.peakRssMb} MB / ${emb.peakRssMb} MB${shape(large)}` : 'run with --with-large'),
      t('pages/s at 100k ÷ at 10k', ratios.largePagesPerSecondVsEmbedded, '0.85 – 1.15', (v) => v >= 0.85 && v <= 1.15,
        large && emb ? `${large.pagesPerSecond} / ${emb.pagesPerSecond}${shape(large)}` : 'run with --with-large'),
      t('peak RSS at 100k pages ÷ at 10k, the same hosts deeper', ratios.deepPeakRssVsEmbedded, '≤ 1.15', (v) => v <= 1.15,
        deep && emb ? `${deep.peakRssMb} MB / ${emb.peakRssMb} MB${shape(deep)}` : 'run with --with-large'),
      t('pages/s at 100k ÷ at 10k, the same hosts deeper', ratios.deepPagesPerSecondVsEmbedded, '0.85 – 1.15', (v) => v >= 0.85 && v <= 1.15,
        deep && emb ? `${deep.pagesPerSecond} / ${emb.pagesPerSecond}${shape(deep)}` : 'run with --with-large'),
      ...focusTargets(res.focus, t),
    ],
    fairness: fairness(res, ref),
  };
}

/** A long run's web, so that hosts in hand and pages per host are not read as one. */
const shape = (r: CrawlRun) => ` (${r.hosts} hosts × ${r.pagesPerHost} pages)`;

function hostIdleHow(k: CrawlRun, e: CrawlRun | undefined): string {
  const g = (r: CrawlRun) => (r.web.hostGapMs ? `p50 ${r.web.hostGapMs.p50} / p90 ${r.web.hostGapMs.p90} ms` : 'no gaps');
  return `from the end of one request to a host to the start of the next, the server's log: Kafka ${g(k)}` + (e ? `; embedded ${g(e)}` : '');
}

/** Issue 21's targets: a focused crawl of the topic web against an unfocused one, and what focus costs parse. */
function focusTargets(f: FocusResult | undefined, t: (name: string, value: number | null | undefined, target: string, ok: (v: number) => boolean, how: string) => Target): Target[] {
  const none = 'section focus not run';
  return [
    t('focus: harvest rate over the first 500 pages (topic web)', f?.focused.harvest, '≥ 0.3', (v) => v >= 0.3,
      f ? `${f.focused.harvest} focused, ${f.plain.harvest} unfocused; ${f.what}` : none),
    t('focus: harvest rate ÷ unfocused', f?.harvestRatio, '≥ 5', (v) => v >= 5, f ? `${f.focused.harvest} / ${f.plain.harvest}` : none),
    t('focus: share of on-topic pages within 3× their number', f?.focused.coverage, '≥ 0.8', (v) => v >= 0.8,
      f ? `${f.web.onTopic} on-topic pages among ${f.web.pages}; unfocused ${f.plain.coverage}` : none),
    t('focus: parse µs per bench page, focus on − off', f?.parse.overheadMicrosPerPage, '≤ 50', (v) => v <= 50,
      f ? `${f.parse.focusMicrosPerPage} − ${f.parse.plainMicrosPerPage} µs (medians differ by ${f.parse.medianOverheadMicrosPerPage}); ${f.parse.what}` : none),
  ];
}

function brokerHow(k: CrawlRun): string {
  const idle = k.servicesIdleCpuPerSecond?.kafka;
  const net = idle === undefined ? undefined : k.servicesCpuSeconds!.kafka - idle * k.wallSeconds;
  return `${k.servicesCpuSeconds!.kafka} broker CPU s during the crawl / ${k.pages} pages` +
    (net === undefined ? '' : `; the broker used ${idle} CPU s/s before the crawl, so ~${msPerPage(Math.max(0, net), k.pages)} ms per page above that`) +
    ' (the broker is shared: other users\' traffic counts too)';
}

function fairness(res: Results, ref: CrawlRun | undefined): string[] {
  const o = res.options;
  return [
    `Bench web: bench/bench-server.ts, a fresh server process per crawler, every page pre-rendered and served from memory (it costs almost nothing per page; its CPU is shown per run). ${o.hosts} hosts × ${o.pagesPerHost} pages (~18 KB, 25 links: 8 tree children, 15 random same-host, 2 cross-host).`,
    `Seeds: the roots of the first ${o.seeds} hosts, the same for every crawler; the other hosts are found through cross-host links.`,
    'Pages are counted by the server (robots.txt excluded); pages/s = pages ÷ wall time of the crawler process, start-up and shutdown included. Peak RSS and CPU: GNU time (wait4 ru_maxrss, user+sys of every thread).',
    'crawlstream: defaults with --default-delay-ms 0: one request in flight per host (its politeness, not switchable), ≤128 fetches in flight, results in embedded ClickHouse (chdb, in the crawl process) + LevelDB on disk.',
    `Crawlee CheerioCrawler (the peer): respectRobotsTxtFile, maxConcurrency ${o.crawlee[0]?.max ?? 64}, autoscaled from minConcurrency ${o.crawlee.map((c) => c.min).join(' / ')}, no per-host delay (its default: several requests to one host at once), default retries, MemoryStorage without persistence, log off, enqueueLinks({ strategy: 'all' }); the handler reads the title and stores nothing. Ratios use the fastest: ${ref?.name ?? 'none measured'}.`,
    'HTTPS runs (section https): the same web over TLS 1.3 with an ECDSA P-256 certificate for its addresses, signed by a CA made with the openssl CLI for the run; crawlstream trusts it through --ca-file, Crawlee through NODE_EXTRA_CA_CERTS, and both verify certificates (Crawlee with ignoreSslErrors: false; its default skips verification).',
    'Before each measured crawl the harness waits (up to a limit) for the machine to be quiet; the CPU other processes used during a run is shown, so a disturbed run can be told apart.',
  ];
}
