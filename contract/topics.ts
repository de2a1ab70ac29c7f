// The crawl's topics: one declaration each, with the TypeScript type of its values. Processors name
// these objects as their inputs and outputs, so `forward` only compiles with a declared output and
// its record type. Every topic is keyed by host (lowercased, punycode, port kept when not the
// default), except the internal band repartition.
import { defineTopic } from '../engine/api.js';
import { loadSchema } from '../schemas/schema-files.js';
import type { CanonicalUrl, DiscoveredUrl, Duplicate, FetchRequest, FetchResult, ParsedPage, SimhashBand, SkippedUrl, UnfetchedUrl } from '../schemas/records.js';

const DAY = 24 * 60 * 60 * 1000;
const MB = 1024 * 1024;
const HOST = 'host (lowercased, punycode, port kept when not the default)';

export const discoveredUrls = defineTopic<DiscoveredUrl>()({
  name: 'discovered-urls', schema: loadSchema('discovered-url'), key: 'the URL\'s host', retention: 'until-consumed', maxRecordBytes: MB,
  description: 'URLs as found: seeds, links, sitemap entries, redirect targets; a page\'s URLs to one host in one record, keyed by that host',
});

export const normalized = defineTopic<CanonicalUrl>()({
  name: 'normalized', schema: loadSchema('canonical-url'), key: HOST, retention: 'until-consumed', maxRecordBytes: MB,
  description: 'canonical URLs that passed the trap guards, a batch\'s URLs of one canonical host in one record',
});

export const deduped = defineTopic<CanonicalUrl>()({
  name: 'deduped', schema: loadSchema('canonical-url'), key: HOST, retention: 'until-consumed', maxRecordBytes: MB,
  description: 'each canonical URL once per crawl',
});

export const scheduled = defineTopic<FetchRequest>()({
  name: 'scheduled', schema: loadSchema('fetch-request'), key: HOST, retention: 'until-consumed', maxRecordBytes: MB,
  description: 'leases: a host\'s next URLs (up to 32) released together, to be fetched in order and spaced by the fetch task',
});

export const resolved = defineTopic<FetchRequest>()({
  name: 'resolved', schema: loadSchema('fetch-request'), key: 'the server address the request goes to', retention: 'until-consumed',
  maxRecordBytes: MB, internal: true,
  description: 'internal repartition of leased fetches by server address, one request per record, so hosts on one server share its limit',
});

export const unfetched = defineTopic<UnfetchedUrl>()({
  name: 'unfetched', schema: loadSchema('unfetched-url'), key: HOST, retention: 'until-consumed', maxRecordBytes: MB, internal: true,
  description: 'leased URLs the fetch task gave back without a request (lease cut short by a failure, or released before a restart)',
});

export const fetched = defineTopic<FetchResult>()({
  name: 'fetched', schema: loadSchema('fetch-result'), key: HOST, retention: { ms: 7 * DAY }, maxRecordBytes: 16 * MB,
  description: 'fetch outcomes with raw bodies (bounded, compressed): replayable without refetching',
});

export const fetchReports = defineTopic<FetchResult>()({
  name: 'fetch-reports', schema: loadSchema('fetch-result'), key: HOST, retention: 'until-consumed', maxRecordBytes: 16 * MB, internal: true,
  description: 'what the schedule needs of each fetch outcome: the fetched record without its body and headers (a robots.txt keeps its body)',
});

export const parsed = defineTopic<ParsedPage>()({
  name: 'parsed', schema: loadSchema('parsed-page'), key: HOST, retention: { ms: 7 * DAY }, maxRecordBytes: 8 * MB,
  description: 'title, text stats, links, canonical, meta robots, content hash, simhash',
});

export const simhashBands = defineTopic<SimhashBand>()({
  name: 'simhash-bands', schema: loadSchema('simhash-band'), key: 'band number and 16-bit band value', retention: 'until-consumed',
  maxRecordBytes: MB, internal: true,
  description: 'internal repartition of parsed pages by 16-bit simhash band',
});

export const duplicates = defineTopic<Duplicate>()({
  name: 'duplicates', schema: loadSchema('duplicate'), key: 'the duplicate page\'s host', retention: { ms: 7 * DAY }, maxRecordBytes: MB,
  description: 'pages that repeat an earlier page exactly or nearly',
});

export const skipped = defineTopic<SkippedUrl>()({
  name: 'skipped', schema: loadSchema('skipped-url'), key: HOST, retention: { ms: 7 * DAY }, maxRecordBytes: MB,
  description: 'URLs the crawler decided not to fetch, and why (robots.txt, budgets, Crawl-delay, network policy, hard focus)',
});
