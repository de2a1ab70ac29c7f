// What a page costs on Kafka, by component, against issue 18's targets: worker CPU (main thread and
// the rest), broker, registry and ClickHouse server CPU, the broker requests the workers sent
// (transactions = EndTxn, produce and fetch requests), each per page, beside pages/s; and the ratios
// that judge the design: Kafka's CPU per page over the embedded crawl's in the same run, and two
// workers' over one's.
import type { CrawlRun } from './crawls.js';
import { fmt } from './render.js';
import { msPerPage, ratio, type Results } from './report.js';

/** The requests a worker said it sent as it stopped, added up over its threads (one line each). */
export function parseRequestCounts(stderr: string): Record<string, number> | undefined {
  const lines = [...stderr.matchAll(/kafka requests: (\{.*\})/g)];
  if (lines.length === 0) return undefined;
  try {
    return sumCounts(lines.map((m) => JSON.parse(m[1]) as Record<string, number>));
  } catch {
    return undefined;
  }
}

export function sumCounts(list: (Record<string, number> | undefined)[]): Record<string, number> | undefined {
  if (list.some((c) => c === undefined)) return undefined;
  const out: Record<string, number> = {};
  for (const c of list) for (const [k, v] of Object.entries(c!)) out[k] = (out[k] ?? 0) + v;
  return out;
}

/** Everything a Kafka crawl burned: the workers and the three services. */
export function kafkaTotalCpu(r: CrawlRun): number {
  return r.cpuSeconds + servicesCpu(r);
}

/**
 * The same over the crawl alone (seed → idle, the services' window): a worker's start-up (loading,
 * joining nine groups, opening its stores) and its wait for a crawl are paid once per worker, not per
 * page, and weigh on a 10,000-page run in proportion to the number of workers.
 */
export function kafkaCrawlCpu(r: CrawlRun): number | undefined {
  return r.workersCrawlCpuSeconds === undefined ? undefined : r.workersCrawlCpuSeconds + servicesCpu(r);
}

function servicesCpu(r: CrawlRun): number {
  const s = r.servicesCpuSeconds ?? {};
  return (s.kafka ?? 0) + (s['schema-registry'] ?? 0) + (s.clickhouse ?? 0);
}

/** Round 2 and later of an arm are named `<arm>#<round>` (bench/main.ts). */
export const roundName = (arm: string, round: number) => (round > 1 ? `${arm}#${round}` : arm);
const baseName = (name: string) => name.replace(/#\d+$/, '');
const roundsOf = (runs: CrawlRun[], arm: string) => runs.filter((r) => baseName(r.name) === arm);

/** CPU-ms per page of an arm's rounds together; null without a run or with any run lacking the figure. */
export function pooledMsPerPage(rounds: CrawlRun[], cpu: (r: CrawlRun) => number | undefined): number | null {
  const values = rounds.map(cpu);
  if (rounds.length === 0 || values.some((v) => v === undefined)) return null;
  return msPerPage(values.reduce((a: number, b) => a + b!, 0), rounds.reduce((n, r) => n + r.pages, 0));
}

const TARGETS = { kafkaOverEmbedded: 2.0, brokerMsPerPage: 1.5, clickhouseMsPerPage: 0.5, twoOverOne: 1.1 };
const judge = (v: number | null, max: number) => (v === null ? '—' : v <= max ? '✓' : '✗');

export function kafkaCostSection(res: Results): string[] {
  const runs = Object.values(res.crawls).filter((r) => r.name.startsWith('kafka-'));
  if (runs.length === 0) return [];
  const emb = res.crawls.embedded;
  const perPage = (r: CrawlRun, n: number | undefined) => (n === undefined ? null : n / Math.max(1, r.pages));
  const out = ['## Kafka: cost per page (issue 18)', '',
    'Worker CPU covers its whole life (start-up, waiting for the crawl, shutdown); "seed → idle" covers the crawl alone, the window of the services\' CPU. ' +
    'Requests are what the workers sent, counted by kafkajs\'s instrumentation and the transactional producer\'s diagnostics channel (group offsets in a transaction, sent through kafkajs\'s cluster, are not counted), printed when they stop; a transaction is one EndTxn.', '',
    '| run | pages | pages/s | worker ms/page | seed → idle | main thread | other threads | broker | registry | ClickHouse server | total | ÷ embedded | transactions/page | produce req/page | fetch req/page | all requests/page |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|'];
  for (const r of runs) {
    const s = r.servicesCpuSeconds ?? {};
    const th = r.threads;
    const ms = (v: number | undefined) => fmt(msPerPage(v, r.pages), 2);
    const total = msPerPage(kafkaTotalCpu(r), r.pages);
    const embTotal = emb ? msPerPage(emb.cpuSeconds, emb.pages) : null;
    const q = r.kafkaRequests;
    const all = q ? Object.values(q).reduce((a, b) => a + b, 0) : undefined;
    out.push(`| ${r.name} | ${r.pages} | ${fmt(r.pagesPerSecond)} | ${ms(r.cpuSeconds)} | ${ms(r.workersCrawlCpuSeconds)} | ${ms(th?.mainThread)} | ${th ? ms(r.cpuSeconds - th.mainThread) : '—'} | ` +
      `${ms(s.kafka)} | ${ms(s['schema-registry'])} | ${ms(s.clickhouse)} | ${fmt(total, 2)} | ${fmt(ratio(total ?? undefined, embTotal ?? undefined), 2)} | ` +
      `${fmt(perPage(r, q?.EndTxn), 3)} | ${fmt(perPage(r, q?.Produce), 3)} | ${fmt(perPage(r, q?.Fetch), 3)} | ${fmt(perPage(r, all), 2)} |`);
  }
  // Each arm's rounds pooled (CPU over pages, all rounds): the section runs its arms in ABBA order
  // (round 2 reversed), so a machine that drifts over the section weighs on every arm alike.
  const pooled = (base: string, cpu: (r: CrawlRun) => number | undefined) => pooledMsPerPage(roundsOf(runs, base), cpu);
  const total = (base: string) => pooled(base, kafkaTotalCpu);
  const k = res.crawls['kafka-1w'] ? 'kafka-1w' : baseName(runs[0].name);
  const rounds = roundsOf(runs, k).length;
  const over = ratio(total(k) ?? undefined, emb ? msPerPage(emb.cpuSeconds, emb.pages) ?? undefined : undefined);
  const broker = pooled(k, (r) => r.servicesCpuSeconds?.kafka);
  const ch = pooled(k, (r) => r.servicesCpuSeconds?.clickhouse);
  const scale = ratio(total('kafka-2w') ?? undefined, total('kafka-1w') ?? undefined);
  const crawlScale = ratio(pooled('kafka-2w', kafkaCrawlCpu) ?? undefined, pooled('kafka-1w', kafkaCrawlCpu) ?? undefined);
  const of = rounds > 1 ? `${k}, its ${rounds} rounds pooled` : k;
  out.push('', '| target | value | limit | |', '|---|---:|---:|:-:|',
    `| CPU-ms per page on Kafka (workers + broker + registry + ClickHouse) ÷ embedded, ${of} | ${fmt(over, 2)} | ≤ ${TARGETS.kafkaOverEmbedded} | ${judge(over, TARGETS.kafkaOverEmbedded)} |`,
    `| broker CPU-ms per page, ${of} | ${fmt(broker, 2)} | ≤ ${TARGETS.brokerMsPerPage} | ${judge(broker, TARGETS.brokerMsPerPage)} |`,
    `| ClickHouse server CPU-ms per page, ${of} | ${fmt(ch, 2)} | ≤ ${TARGETS.clickhouseMsPerPage} | ${judge(ch, TARGETS.clickhouseMsPerPage)} |`,
    `| CPU-ms per page, 2 workers ÷ 1 worker (workers' whole life${rounds > 1 ? ', rounds pooled' : ''}) | ${fmt(scale, 2)} | ≤ ${TARGETS.twoOverOne} | ${judge(scale, TARGETS.twoOverOne)} |`,
    `| the same, seed → idle | ${fmt(crawlScale, 2)} | ≤ ${TARGETS.twoOverOne} | ${judge(crawlScale, TARGETS.twoOverOne)} |`);
  // Stream threads (issue 19): one worker process of N threads against one of one thread.
  const threadArms = [...new Set(runs.map((r) => baseName(r.name)).filter((n) => /^kafka-1w\d+t$/.test(n)))];
  for (const arm of threadArms) {
    const threads = ratio(total(arm) ?? undefined, total('kafka-1w') ?? undefined);
    out.push(`| CPU-ms per page, one worker of ${arm.slice(8, -1)} threads ÷ one of 1 (\`worker --threads\`, whole life) | ${fmt(threads, 2)} | ≤ ${TARGETS.twoOverOne} | ${judge(threads, TARGETS.twoOverOne)} |`);
  }
  // No run here is faulted: a page fetched twice is work redone after a failed transaction, and a
  // server asked twice for what it already gave.
  for (const r of runs) {
    const twice = r.web.pageRequests - r.web.distinctPages;
    out.push(`| pages fetched more than once, ${r.name} (no faults) | ${twice} | 0 | ${judge(twice, 0)} |`);
  }
  out.push('');
  if (rounds > 1) out.push(`- Each arm ran ${rounds} times, in ABBA order (round 2 reversed); a ratio or a per-page figure above pools an arm's rounds (CPU of all over pages of all).`);
  for (const arm of threadArms) {
    out.push(`- ${arm}: each worker runs in a thread of its own, so its event loop counts under "other threads"; the process's main thread only supervises them.`);
  }
  for (const r of runs) if (r.kafkaRequests) out.push(`- ${r.name} requests: ${Object.entries(r.kafkaRequests).map(([api, n]) => `${api} ${n}`).join(', ')}`);
  out.push('');
  return out;
}
