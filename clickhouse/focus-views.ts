// A focused crawl's figure of merit in ClickHouse: the harvest rate, per minute of the crawl. Pages
// fetched are page fetch attempts (robots.txt and sitemaps aside); relevant pages are the pages judged
// at or above the crawl's threshold, as each parse row recorded them (a replay with new examples
// rewrites relevance and threshold, and the view follows).
export function focusHarvestView(db: string): string {
  return `CREATE VIEW IF NOT EXISTS focus_harvest AS
SELECT minute, pages, judged, relevant, if(pages > 0, relevant / pages, 0) AS harvest_rate
FROM (
  SELECT toStartOfMinute(started_at) AS minute, count() AS pages
  FROM ${db}.fetches FINAL
  WHERE kind = 'page'
  GROUP BY minute
) AS fetched
ANY LEFT JOIN (
  SELECT toStartOfMinute(fetched_at) AS minute, count() AS judged, countIf(relevance >= focus_threshold) AS relevant
  FROM ${db}.parsed_pages FINAL
  WHERE relevance >= 0
  GROUP BY minute
) AS judged USING (minute)
ORDER BY minute`;
}
