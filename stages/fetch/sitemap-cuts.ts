// The work a sitemap fetch dropped, as `skipped` rows: entries the parser would not pass on (off the
// sitemap's host or path, on an address the network policy refuses, too deep, unusable), and the rest
// of a file cut at a limit. Up to 50,000 entries per file may be dropped: one row per reason, with
// how many (url_count) and the first of them, as normalize does for a page's links.
import type { SkippedUrl } from '../../schemas/records.js';
import type { IgnoredReason, SitemapSummary } from '../../sitemaps/sitemap-parser.js';
import type { FetchOutcome } from '../../fetching/http-fetcher.js';

/** Why an address cannot be fetched under the crawl's network policy, or undefined when it can (or is a name). */
export type AddressRefusal = (hostname: string) => string | undefined;

interface Tally {
  first: string;
  detail: string;
  count: number;
}

/** The entries one sitemap fetch dropped, tallied by the reason a `skipped` row gives. */
export class SitemapCuts {
  private readonly byReason = new Map<string, Tally>();

  constructor(private readonly refused: AddressRefusal) {}

  /** For SitemapParser's onIgnored. */
  ignored(loc: string, reason: IgnoredReason, detail: string): void {
    if (reason === 'cross-host') {
      // An off-host entry that names a forbidden address (a cloud metadata service, the loopback) is
      // said apart: a sitemap aiming the crawler at them is worth a data engineer's look.
      const refusal = this.refused(hostnameOf(loc));
      if (refusal) return this.add('sitemap-forbidden-address', loc, `an entry names an address the crawl may not reach: ${refusal}`);
      return this.add('sitemap-off-host', loc, `${detail}: a sitemap speaks for its own host only`);
    }
    const name = reason === 'out-of-path' ? 'sitemap-out-of-path' : reason === 'too-deep' ? 'sitemap-too-deep' : 'sitemap-invalid-entry';
    this.add(name, loc, detail);
  }

  /**
   * The rows: one per reason, keyed (and `host`) by the sitemap's host, whose file dropped them, with
   * the first entry dropped as `url`; and one for the unread rest of a file cut at a limit.
   */
  rows(request: { url: string; host: string; depth: number }, summary: SitemapSummary, outcome: FetchOutcome, now: number): SkippedUrl[] {
    const shared = { host: request.host, depth: request.depth + 1, source_url: request.url, decided_at: now };
    const rows: SkippedUrl[] = [];
    for (const [reason, t] of this.byReason) {
      const detail = t.count > 1 ? `${t.count} entries of this sitemap, the first shown: ${t.detail}` : t.detail;
      rows.push({ ...shared, url: (t.first || request.url).slice(0, 4096), reason, detail: detail.slice(0, 1000), url_count: t.count });
    }
    if (summary.cutBy) {
      const what = summary.kind === 'rss' || summary.kind === 'atom' ? 'feed' : 'sitemap';
      rows.push({ ...shared, depth: request.depth, url: request.url, reason: `${what}-limit`, detail: unread(summary, outcome), url_count: 1 });
    }
    return rows;
  }

  private add(reason: string, loc: string, detail: string): void {
    const seen = this.byReason.get(reason);
    if (seen) seen.count++;
    else this.byReason.set(reason, { first: loc, detail, count: 1 });
  }
}

/** What a limit left unread: the entries after it, and the bytes not downloaded, by the declared length when there is one. */
function unread(s: SitemapSummary, o: FetchOutcome): string {
  const why = s.cutBy === 'max-urls' ? 'more than the 50,000 entries a file may list'
    : s.cutBy === 'max-bytes' ? 'more than the 50 MB (uncompressed) a file may hold'
    : s.cutBy === 'max-markup' ? 'a tag, comment or declaration over 64 Ki characters'
    : 'elements nested deeper than 32';
  const read = `read ${s.urls + s.sitemaps} entries passed on and ${o.bytes} bytes (${o.wireBytes} on the wire)`;
  const declared = Number(o.headers['content-length']);
  const rest = Number.isSafeInteger(declared) && declared > o.wireBytes
    ? `the remaining ${declared - o.wireBytes} of ${declared} declared bytes were not downloaded`
    : o.errorKind === '' ? 'the file ended in the chunk the limit was met in' : 'the rest, of undeclared length, was not downloaded';
  const after = s.cutBy === 'max-urls' ? 'at least one more entry and everything after it were not read' : 'nothing after it was read';
  return `stopped at ${s.cutBy} (${why}): ${read}; ${after}, ${rest}`;
}

function hostnameOf(loc: string): string {
  try {
    const h = new URL(loc).hostname;
    return h.startsWith('[') ? h.slice(1, -1) : h;
  } catch {
    return ''; // cross-host entries are absolute URLs; '' is refused by no policy check below
  }
}
