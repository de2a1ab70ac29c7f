// `crawlstream report`: one self-contained HTML page with the charts a crawl operator looks at.
// Every chart is one query below, kept to SQL that both chdb (26.x) and ClickHouse 18.16 run, so
// users can copy them (the README lists them) and adapt them. History tables are read with FINAL so
// that rows a replay rewrote count once.
import type { ClickHouse } from './connection.js';
import { describeDamage } from './damage.js';
import { barChart, escapeHtml, formatBytes, formatCount, formatMs, formatTime, timeChart, type Bar } from './svg-charts.js';

export interface ReportQuery {
  title: string;
  sql: string;
}

type Row = Record<string, string | number>;

interface Section extends ReportQuery {
  /** What the chart shows, in a sentence for the reader. */
  about: string;
  render(rows: Row[]): string;
}

const n = (v: unknown) => Number(v ?? 0);
const plural = (count: number, noun: string) => `${formatCount(count)} ${noun}${count === 1 ? '' : 's'}`;

const STATUS_COLORS: [number, string][] = [[600, '#9e9e9e'], [500, '#d62728'], [400, '#ff7f0e'], [300, '#1f77b4'], [200, '#2ca02c']];
const statusColor = (s: number) => (s === 0 ? '#7f7f7f' : STATUS_COLORS.find(([floor]) => s >= floor)?.[1] ?? '#9e9e9e');
const OUTCOME_COLORS: Record<string, string> = { rules: '#2ca02c', 'allow-all': '#1f77b4', redirect: '#9467bd', unreachable: '#d62728', incomplete: '#ff7f0e' };
const SKIP_COLOR = '#8c6d31';

const SECTIONS: Section[] = [
  {
    title: 'Pages and bytes over time',
    about: 'Page fetches per time bucket (bars) and the bytes they brought in (line). Buckets adapt to the crawl\'s length.',
    sql: `WITH (SELECT greatest(toUInt64(1000), toUInt64(ceil((max(started_at_ms) - min(started_at_ms)) / 100000) * 1000)) FROM fetches) AS step
SELECT intDiv(started_at_ms, step) * step AS bucket_ms, countIf(kind = 'page') AS pages, sum(bytes) AS bytes
FROM fetches FINAL
GROUP BY bucket_ms
ORDER BY bucket_ms`,
    render: (rows) => timeChart(rows.map((r) => ({ t: n(r.bucket_ms), bars: n(r.pages), line: n(r.bytes) })),
      { barsLabel: 'pages', lineLabel: 'bytes', formatLine: formatBytes }),
  },
  {
    title: 'Status codes',
    about: 'Page fetch attempts by HTTP status; 0 means no response (network error).',
    sql: `SELECT status, count() AS fetches
FROM fetches FINAL
WHERE kind = 'page'
GROUP BY status
ORDER BY status`,
    render: (rows) => barChart(rows.map((r) => ({ label: n(r.status) === 0 ? 'network error' : String(r.status), value: n(r.fetches), color: statusColor(n(r.status)) }))),
  },
  {
    title: 'Top hosts by requests',
    about: 'The 20 hosts that received the most requests (robots.txt included).',
    sql: `SELECT host, count() AS requests, countIf(error != '') AS errors, sum(bytes) AS bytes
FROM fetches FINAL
GROUP BY host
ORDER BY requests DESC, host
LIMIT 20`,
    render: (rows) => barChart(rows.map((r) => ({ label: String(r.host), value: n(r.requests), note: `${formatBytes(n(r.bytes))}, ${plural(n(r.errors), 'error')}` }))),
  },
  {
    title: 'Politeness audit',
    about: 'Per host: the most requests that started within any sliding 10 s window (bars), the smallest gap between the starts of two consecutive requests, and the smallest idle time between the end of one and the start of the next (negative: two requests overlapped).',
    sql: `SELECT host, length(starts) AS requests,
  arrayReduce('max', arrayMap(t -> arrayCount(x -> x >= t AND x < t + 10000, starts), starts)) AS max_in_10s,
  if(length(starts) > 1, arrayReduce('min', arrayMap((b, a) -> toInt64(b) - toInt64(a), arrayPopFront(starts), arrayPopBack(starts))), -1) AS min_gap_ms,
  if(length(starts) > 1, arrayReduce('min', arrayMap((b, e) -> toInt64(b) - toInt64(e), arrayPopFront(starts), arrayPopBack(ends))), -1) AS min_idle_ms
FROM (
  SELECT host, arraySort(groupArray(started_at_ms)) AS starts,
    arraySort((e, s) -> s, groupArray(started_at_ms + elapsed_ms), groupArray(started_at_ms)) AS ends
  FROM fetches FINAL
  GROUP BY host
)
ORDER BY max_in_10s DESC, min_gap_ms, host
LIMIT 20`,
    render: (rows) => barChart(rows.map((r) => ({
      label: String(r.host),
      value: n(r.max_in_10s),
      color: n(r.min_idle_ms) < 0 && n(r.requests) > 1 ? '#d62728' : undefined,
      note: n(r.requests) > 1 ? `min gap ${formatMs(n(r.min_gap_ms))}, min idle ${formatMs(n(r.min_idle_ms))}` : 'one request',
    })), { format: (v) => `${formatCount(v)} in 10 s` }),
  },
  {
    title: 'robots.txt outcomes',
    about: 'Hosts by the outcome of their latest robots.txt fetch: rules, allow-all (4xx), unreachable (5xx or network: nothing is crawled), incomplete (the server cut the body short: nothing is crawled), redirect.',
    sql: `SELECT outcome, count() AS hosts
FROM (SELECT host, argMax(outcome, fetched_at_ms) AS outcome FROM robots FINAL GROUP BY host)
GROUP BY outcome
ORDER BY hosts DESC, outcome`,
    render: (rows) => barChart(rows.map((r) => ({ label: String(r.outcome), value: n(r.hosts), color: OUTCOME_COLORS[String(r.outcome)] }))),
  },
  {
    title: 'Duplicate clusters',
    about: 'The largest groups of pages found to duplicate one original (the original counted), exact and near.',
    sql: `SELECT duplicate_of, uniqExact(url) + 1 AS pages, uniqExactIf(url, kind = 'exact') AS exact, uniqExactIf(url, kind = 'near') AS near
FROM duplicates FINAL
GROUP BY duplicate_of
ORDER BY pages DESC, duplicate_of
LIMIT 15`,
    render: (rows) => barChart(rows.map((r) => ({ label: String(r.duplicate_of), value: n(r.pages), color: n(r.near) > 0 ? '#9467bd' : '#4c78a8', note: `${n(r.exact)} exact, ${n(r.near)} near` })),
      { format: (v) => `${formatCount(v)} pages` }),
  },
  {
    title: 'Errors by kind',
    about: 'Failed fetch attempts by error kind, with the number of hosts they happened on.',
    sql: `SELECT error_kind, count() AS fetches, uniqExact(host) AS hosts
FROM fetches FINAL
WHERE error != ''
GROUP BY error_kind
ORDER BY fetches DESC, error_kind`,
    render: (rows) => barChart(rows.map((r) => ({ label: String(r.error_kind), value: n(r.fetches), color: '#d62728', note: plural(n(r.hosts), 'host') }))),
  },
  {
    title: 'Refetches and changes',
    about: 'Pages fetched again by --recrawl per time bucket (bars) and how many of them had changed (line); the rest answered 304 or came back the same.',
    sql: `WITH (SELECT greatest(toUInt64(1000), toUInt64(ceil((max(started_at_ms) - min(started_at_ms)) / 100000) * 1000)) FROM fetches) AS step
SELECT intDiv(started_at_ms, step) * step AS bucket_ms, count() AS refetches, sum(changed) AS changed
FROM fetches FINAL
WHERE kind = 'page' AND via = 'recrawl' AND error = ''
GROUP BY bucket_ms
ORDER BY bucket_ms`,
    render: (rows) => timeChart(rows.map((r) => ({ t: n(r.bucket_ms), bars: n(r.refetches), line: n(r.changed) })),
      { barsLabel: 'refetches', lineLabel: 'changed' }),
  },
  {
    title: 'Recrawl intervals',
    about: 'URLs by the interval the adaptive policy gave them at their latest fetch: pages that change often are fetched again sooner.',
    sql: `SELECT multiIf(interval_ms < 3600000, '< 1 h', interval_ms < 86400000, '1 h – 1 day', interval_ms < 604800000, '1 day – 1 week', '≥ 1 week') AS band,
  min(interval_ms) AS shortest_ms, count() AS urls, sum(changes) AS changes
FROM (
  SELECT url, argMax(recrawl_interval_ms, started_at_ms) AS interval_ms, sumIf(changed, via = 'recrawl') AS changes
  FROM fetches FINAL
  WHERE kind = 'page' AND error = ''
  GROUP BY url
)
WHERE interval_ms > 0
GROUP BY band
ORDER BY shortest_ms`,
    render: (rows) => barChart(rows.map((r) => ({ label: String(r.band), value: n(r.urls), color: '#17becf', note: `${plural(n(r.changes), 'change')} found by refetching` })),
      { format: (v) => plural(v, 'URL') }),
  },
  {
    title: 'Focus: harvest rate over time',
    about: 'A focused crawl\'s figure of merit: page fetches per minute (bars) and the share of them judged on the topic, relevance at or above the crawl\'s threshold (line). Empty for a crawl without focus.',
    sql: `SELECT toUInt64(toUnixTimestamp(minute)) * 1000 AS minute_ms, pages, judged, relevant, harvest_rate
FROM focus_harvest
WHERE judged > 0
ORDER BY minute_ms`,
    render: (rows) => timeChart(rows.map((r) => ({ t: n(r.minute_ms), bars: n(r.pages), line: Math.round(n(r.harvest_rate) * 100) })),
      { barsLabel: 'pages fetched', lineLabel: 'harvest rate', formatLine: (v) => `${formatCount(v)} %` }),
  },
  {
    title: 'Skipped URLs by reason',
    about: 'URLs the crawler decided not to fetch (no request was sent), by reason: robots.txt, network policy, Crawl-delay over the bound, scope, per-host budget, trap guards (normalize\'s rows stand for url_count URLs each).',
    sql: `SELECT reason, sum(url_count) AS urls, uniqExact(host) AS hosts
FROM skipped FINAL
GROUP BY reason
ORDER BY urls DESC, reason`,
    render: (rows) => barChart(rows.map((r) => ({ label: String(r.reason), value: n(r.urls), color: SKIP_COLOR, note: plural(n(r.hosts), 'host') })),
      { format: (v) => plural(v, 'URL') }),
  },
  {
    title: 'Top hosts by skipped URLs',
    about: 'The 20 hosts with the most URLs not fetched, with the reason that kept most of them out (a URL skipped for two reasons counts twice).',
    sql: `SELECT host, sum(urls) AS skipped, argMax(reason, urls) AS top_reason, max(urls) AS top_reason_urls
FROM (SELECT host, reason, sum(url_count) AS urls FROM skipped FINAL GROUP BY host, reason)
GROUP BY host
ORDER BY skipped DESC, host
LIMIT 20`,
    render: (rows) => barChart(rows.map((r) => ({ label: String(r.host), value: n(r.skipped), color: SKIP_COLOR, note: `${formatCount(n(r.top_reason_urls))} ${String(r.top_reason)}` }))),
  },
];

const SUMMARY: ReportQuery = {
  title: 'Summary',
  sql: `SELECT count() AS fetches, countIf(kind = 'page') AS page_fetches, uniqExact(url) AS urls, uniqExact(host) AS hosts,
  sum(bytes) AS bytes, countIf(error != '') AS errors, min(started_at_ms) AS first_ms, max(started_at_ms) AS last_ms,
  (SELECT sum(url_count) FROM skipped FINAL) AS skipped_urls
FROM fetches FINAL`,
};

/** The report's queries, in the order of the page. */
export const REPORT_QUERIES: ReportQuery[] = [SUMMARY, ...SECTIONS.map(({ title, sql }) => ({ title, sql }))];

export async function buildReport(ch: ClickHouse, opts: { title?: string; now?: Date } = {}): Promise<string> {
  const [summary] = await ch.query<Row>(SUMMARY.sql);
  const figures: string[] = [];
  for (const s of SECTIONS) {
    const rows = await ch.query<Row>(s.sql);
    figures.push(`<figure data-chart="${escapeHtml(slug(s.title))}">
<figcaption><h2>${escapeHtml(s.title)}</h2><p>${escapeHtml(s.about)}</p></figcaption>
${s.render(rows)}
<details><summary>Query</summary><pre>${escapeHtml(s.sql)}</pre></details>
</figure>`);
  }
  const title = opts.title ?? 'Crawl report';
  const generated = (opts.now ?? new Date()).toISOString().replace('T', ' ').slice(0, 19);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${CSS}</style></head>
<body>
<header><h1>${escapeHtml(title)}</h1><p>ClickHouse ${escapeHtml(ch.engine === 'chdb' ? 'embedded' : 'server')} · database ${escapeHtml(ch.database)} · generated ${generated} UTC</p></header>
${damageHtml(ch)}
${summaryHtml(summary ?? {})}
<main>
${figures.join('\n')}
</main>
</body></html>
`;
}

function summaryHtml(s: Row): string {
  const first = n(s.first_ms), last = n(s.last_ms);
  const span = last - first;
  const cells: [string, string][] = [
    ['fetch attempts', formatCount(n(s.fetches))],
    ['page fetches', formatCount(n(s.page_fetches))],
    ['URLs', formatCount(n(s.urls))],
    ['hosts', formatCount(n(s.hosts))],
    ['bytes', formatBytes(n(s.bytes))],
    ['errors', formatCount(n(s.errors))],
    ['URLs skipped', formatCount(n(s.skipped_urls))],
    ['duration', n(s.fetches) ? formatMs(span) : '–'],
    ['from', n(s.fetches) ? `${formatTime(first, Math.max(span, 86_400_000))} UTC` : '–'],
  ];
  return `<section class="summary">${cells.map(([k, v]) => `<div><b>${escapeHtml(v)}</b><span>${escapeHtml(k)}</span></div>`).join('')}</section>`;
}

/** Rows ClickHouse set aside are missing from every number below: the page must say so first. */
function damageHtml(ch: ClickHouse): string {
  const lines = describeDamage(ch.database, { parts: [...ch.damage] });
  if (lines.length) {
    return `<section class="damage" data-damage="parts"><h2>Incomplete history</h2>${lines.map((l) => `<p>${escapeHtml(l)}</p>`).join('')}</section>`;
  }
  if (ch.damageUnknown) {
    return `<section class="damage unknown" data-damage="unknown"><p>Not checked for damaged parts: ${escapeHtml(ch.damageUnknown)}</p></section>`;
  }
  return '';
}

function slug(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

const CSS = `
body { font-family: system-ui, sans-serif; margin: 0; background: #f6f6f4; color: #222; }
header { padding: 16px 24px 4px; } header h1 { margin: 0 0 4px; font-size: 22px; } header p { margin: 0; color: #666; }
.summary { display: flex; flex-wrap: wrap; gap: 12px; padding: 12px 24px; }
.summary div { background: #fff; border-radius: 6px; padding: 10px 14px; min-width: 110px; box-shadow: 0 1px 2px #0001; }
.summary b { display: block; font-size: 20px; } .summary span { color: #666; font-size: 12px; }
main { display: grid; grid-template-columns: repeat(auto-fill, minmax(700px, 1fr)); gap: 16px; padding: 8px 24px 24px; }
figure { margin: 0; background: #fff; border-radius: 6px; padding: 12px 16px; box-shadow: 0 1px 2px #0001; overflow-x: auto; }
figcaption h2 { margin: 0; font-size: 16px; } figcaption p { margin: 4px 0 8px; color: #555; font-size: 13px; }
.damage { margin: 8px 24px; padding: 8px 14px; border-radius: 6px; background: #fdecea; border: 1px solid #d62728; }
.damage h2 { margin: 0 0 4px; font-size: 16px; color: #a01c1c; } .damage p { margin: 2px 0; font-size: 13px; }
.damage.unknown { background: #fff8e1; border-color: #e0a800; }
details { margin-top: 6px; font-size: 12px; } pre { background: #f3f3f3; padding: 8px; overflow-x: auto; }
`;
