// The bench report's section on the continuous crawl (bench/freshness.ts runs it): each runtime's row,
// and issue 18's targets judged on the Kafka run.

/** The politeness delay of the freshness runs, ms. */
export const FRESH_DELAY_MS = 200;

export interface FreshnessRun {
  runtime: 'kafka' | 'embedded';
  seconds: number;
  killedAtSeconds: number;
  /** Fetches per page after its first, averaged over the pages of each kind. */
  refetchesPerPage: { always: number; sometimes: number; never: number };
  /** always ÷ never (Infinity when never-changing pages were not refetched at all). */
  changingOverUnchanging: number;
  /** Stories listed at least 20 s before the end, and how many of them were fetched. */
  storiesDue: number;
  storiesFound: number;
  /** Median time from a story's listing to its first fetch, over the stories found, ms. */
  storyLatencyP50Ms: number;
  overlaps: number;
  shortGaps: number;
  requests: number;
  notes: string[];
}

export interface FreshnessResult {
  runs: FreshnessRun[];
}

/** The bench report's section: each runtime's row, and issue 18's targets judged on the Kafka run. */
export function freshnessSection(f: FreshnessResult | undefined): string[] {
  if (!f?.runs.length) return [];
  const out = ['## Continuous crawl under kill -9 (issue 18)', '',
    `The fresh web (one page that changes at every visit, one that changes every third, one that never changes and answers 304; a front page gaining a story every few seconds), --recrawl with a 2 s minimum and 60 s maximum interval, ${FRESH_DELAY_MS} ms delay; ` +
    'Kafka: two workers on 4 partitions, worker 0 killed -9; embedded: the crawl killed -9 and started again on its data directory. Judged from the test server\'s log.', '',
    '| runtime | seconds | killed at | refetches a page: changing / sometimes / never | changing ÷ unchanging | stories due / found | story found after, p50 | overlaps / short gaps |',
    '|---|---:|---:|---:|---:|---:|---:|---:|'];
  for (const r of f.runs) {
    const p = r.refetchesPerPage;
    out.push(`| ${r.runtime} | ${r.seconds} | ${r.killedAtSeconds} s | ${p.always} / ${p.sometimes} / ${p.never} | ${r.changingOverUnchanging} | ${r.storiesDue} / ${r.storiesFound} | ` +
      `${typeof r.storyLatencyP50Ms !== 'number' || Number.isNaN(r.storyLatencyP50Ms) ? '—' : `${(r.storyLatencyP50Ms / 1000).toFixed(1)} s`} | ${r.overlaps} / ${r.shortGaps} |`);
  }
  const k = f.runs.find((r) => r.runtime === 'kafka');
  if (k) {
    const mark = (ok: boolean) => (ok ? '✓' : '✗');
    const ratio = Number(k.changingOverUnchanging);
    out.push('', '| target (Kafka run) | value | limit | |', '|---|---:|---:|:-:|',
      `| changing ÷ unchanging refetches | ${k.changingOverUnchanging} | ≥ 3 | ${mark(ratio >= 3)} |`,
      `| new stories found, of those listed ≥ 20 s before the end | ${k.storiesFound} / ${k.storiesDue} | all | ${mark(k.storiesFound === k.storiesDue)} |`,
      `| politeness: overlaps, gaps below the delay | ${k.overlaps + k.shortGaps} | 0 | ${mark(k.overlaps + k.shortGaps === 0)} |`);
  }
  for (const r of f.runs) for (const n of r.notes) out.push(`- ${r.runtime}: ${n}`);
  out.push('');
  return out;
}
