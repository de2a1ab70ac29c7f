// What a crawl that was stopped could not finish within --stop-grace, told in the crawl's terms:
// rows not written to ClickHouse, captures not archived, records a stage still held. None of it is
// lost: it was never committed, so running the same command again does it.
import type { UnfinishedWork } from '../crawl/embedded-crawl.js';
import type { OutputState } from '../contract/troubles.js';
import { clickhouseSink } from '../stages/clickhouse-sink/clickhouse-sink.js';

/** The crawl was stopped before work in flight could finish: rerunning the same command resumes it. */
export const UNFINISHED_STOP_EXIT = 5;

export const STOP_FLAGS = { 'stop-grace': { type: 'string' } } as const;

/** 'ClickHouse failed: …', 'ClickHouse has not answered for 12 s', or both. */
function because(output: string, s: OutputState): string {
  const silent = s.silentMs !== undefined ? `${(s.silentMs / 1000).toFixed(0)} s` : '';
  if (s.failure && silent) return `${output} failed: ${s.failure}; its latest attempt has had no answer for ${silent}`;
  return s.failure ? `${output} failed: ${s.failure}` : `${output} has not answered for ${silent}`;
}

/** What to do about it, then one line per processor that left work, with its output's failure; [] when everything finished. */
export function formatUnfinished(unfinished: readonly UnfinishedWork[], graceMs: number, where: { clickhouse: string; warcDir?: string }): string[] {
  if (unfinished.length === 0) return [];
  const grace = graceMs >= 1000 ? `${(graceMs / 1000).toFixed(graceMs % 1000 ? 1 : 0)} s` : `${graceMs} ms`;
  const lines = unfinished.map((u) => {
    const n = `${u.records} record${u.records === 1 ? '' : 's'}`;
    const why = u.why ? `: ${because(u.processor === 'warc' ? 'writing WARC files' : 'ClickHouse', u.why)}` : '';
    if (u.processor === clickhouseSink.name) return `not written: the rows of ${n} (fetches, pages, links, skipped URLs) are not in ${where.clickhouse} yet${why}`;
    if (u.processor === 'warc') return `not archived: ${n} of fetched pages have no WARC capture in ${where.warcDir ?? 'the WARC directory'} yet${why}`;
    return `not finished: ${u.processor} still held ${n} in progress${why}`;
  });
  // The causes come last: they are what a person reads first at the end of the output.
  return [
    `stopped before everything finished: the stop waited ${grace} (--stop-grace); nothing is lost: run the same command again to resume, and this is done first:`,
    ...lines.map((l) => `  ${l}`),
  ];
}
