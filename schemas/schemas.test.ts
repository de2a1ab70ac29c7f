import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import avro from 'avsc';
import { SCHEMA_FILES, loadSchema, type SchemaName } from './schema-files.js';
import { canonicalEntries, discoveredEntries } from '../contract/url-batch.js';
import { crawlTopology } from '../crawl/topology.js';
import type {
  CanonicalUrl, DiscoveredUrl, Duplicate, FetchRequest, FetchResult, ParsedPage, SimhashBand, SkippedUrl, UnfetchedUrl,
} from './records.js';

const SCHEMA_DIR = new URL('../../schemas/', import.meta.url);
const AT = Date.UTC(2026, 0, 1, 12);

// One realistic, fully populated value per record type. Typed object literals make TypeScript reject a
// missing or an unknown field, so these mirror records.ts exactly; the tests compare them with the .avsc.
const discovered: DiscoveredUrl = {
  url: 'http://a.test/about#team', source_url: 'http://a.test/', depth: 1, anchor: 'About us', via: 'link', redirect_hops: 0, discovered_at: AT,
  priority_hint: 0.8, changefreq: 'daily', lastmod: AT - 86_400_000, sitemap_depth: 0, score: 0.75,
  more: [{ url: 'http://a.test/news', anchor: 'News', priority_hint: 0.5, changefreq: 'hourly', lastmod: AT - 3_600_000, sitemap_depth: 2, score: 0.25 }],
};
const canonical: CanonicalUrl = {
  url: 'http://a.test/about', host: 'a.test', depth: 1, source_url: 'http://a.test/', via: 'redirect', redirect_hops: 2, discovered_at: AT,
  priority_hint: -1, changefreq: '', lastmod: 0, sitemap_depth: 1, inlinks: 4, score: 0.5,
  more: [{ url: 'http://a.test/contact', priority_hint: 0.3, changefreq: 'weekly', lastmod: AT - 1000, sitemap_depth: 0, inlinks: 2, score: 0.125 }],
};
const request: FetchRequest = {
  fetch_id: 'a.test#17', url: 'http://a.test/about', host: 'a.test', kind: 'page', depth: 1, attempt: 2, via: 'link',
  source_url: 'http://a.test/', redirect_hops: 0, delay_ms: 1500, released_at: AT, if_none_match: '"v1"', if_modified_since: 'Wed, 31 Dec 2025 10:00:00 GMT',
  priority: 1.5, recrawl_interval_ms: 3_600_000, previous_sha1: 'b'.repeat(40), gone_count: 1, sitemap_depth: 0, address: '127.0.0.7',
  previous_captured_at: AT - 86_400_000, lease_id: 'a.test#17', lease_epoch: 3,
  more: [{
    fetch_id: 'a.test#17.1', url: 'http://a.test/sitemap.xml', kind: 'sitemap', depth: 0, attempt: 1, via: 'sitemap', source_url: 'http://a.test/robots.txt',
    redirect_hops: 0, if_none_match: '"s1"', if_modified_since: '', priority: 15.9, recrawl_interval_ms: 0, previous_sha1: '', gone_count: 0,
    sitemap_depth: 1, previous_captured_at: 0,
  }],
};
const result: FetchResult = {
  fetch_id: 'a.test#17', url: 'http://a.test/old', host: 'a.test', kind: 'robots', depth: 1, attempt: 2, via: 'redirect',
  source_url: 'http://a.test/older', redirect_hops: 1, status: 301, error: 'timeout: body too slow', final_url: 'http://a.test/new',
  redirect_chain: ['http://a.test/older'], headers: { 'content-type': 'text/html; charset=utf-8', location: '/new' },
  started_at: AT, elapsed_ms: 120, ttfb_ms: 40, bytes: 5000, wire_bytes: 1800, content_type: 'text/html', charset: 'utf-8',
  truncated: true, retry_after_ms: 30_000, conditional: true, remote_address: '127.0.0.9', body_encoding: 'gzip',
  body: Buffer.from([0x1f, 0x8b, 8, 0, 1, 2, 3]),
  body_sha1: 'c'.repeat(40), etag: '"v2"', last_modified: 'Thu, 01 Jan 2026 10:00:00 GMT', changed: false, priority: 1.5,
  recrawl_interval_ms: 5_400_000, next_due_at: AT + 5_400_000, sitemap_depth: 2, sitemap_urls: 17,
  rendered_encoding: 'gzip', rendered_body: Buffer.from([0x1f, 0x8b, 8, 0, 4, 5]), render_error: 'unsettled: still loading',
  subrequests: [{ url: 'http://a.test/app.js', resource_type: 'script', outcome: 'fetched: 200' }],
  http_version: '1.1', status_text: 'Moved Permanently', request_method: 'GET',
  request_headers: [{ name: 'host', value: 'a.test' }, { name: 'user-agent', value: 'crawlstream/0.1' }],
  response_headers: [{ name: 'Content-Type', value: 'text/html; charset=utf-8' }, { name: 'Set-Cookie', value: 'a=1' }, { name: 'Set-Cookie', value: 'b=2' }],
  truncation: 'time', previous_sha1: 'd'.repeat(40), previous_captured_at: AT - 86_400_000, tls_problem: 'expired: the certificate has expired (CERT_HAS_EXPIRED)',
  lease_id: 'a.test#17', lease_epoch: 3, address: '127.0.0.9',
};
const parsed: ParsedPage = {
  fetch_id: 'a.test#17', url: 'http://a.test/about', host: 'a.test', depth: 1, status: 200, final_url: 'http://a.test/about',
  fetched_at: AT, content_type: 'text/html', title: 'About – us', canonical: 'http://a.test/about', lang: 'en',
  meta_noindex: true, meta_nofollow: true, text_length: 1234, content_hash: 'a'.repeat(40),
  simhash: Buffer.from('0123456789abcdef', 'hex'),
  links: [{ url: 'http://b.test/', anchor: 'B', nofollow: false }, { url: 'http://c.test/', anchor: 'C', nofollow: true }],
  parser_version: 'parse/1', error: 'stored-body: corrupt', text: 'About us, and more', relevance: 0.625, focus_threshold: 0.375,
};
const band: SimhashBand = {
  band: 2, url: 'http://a.test/about', host: 'a.test', fetch_id: 'a.test#17', simhash: Buffer.from('0123456789abcdef', 'hex'),
  content_hash: 'a'.repeat(40), fetched_at: AT,
};
const duplicate: Duplicate = {
  url: 'http://b.test/copy', host: 'b.test', fetch_id: 'b.test#3', duplicate_of: 'http://a.test/about',
  duplicate_of_fetched_at: AT - 1000, kind: 'near', distance: 2, detected_at: AT,
};

const skipped: SkippedUrl = {
  url: 'http://c.test/private/x', host: 'c.test', reason: 'robots-disallowed', detail: 'Disallow: /private',
  depth: 2, source_url: 'http://a.test/about', decided_at: AT, url_count: 3,
};

const unfetched: UnfetchedUrl = {
  fetch_id: 'a.test#17.1', lease_id: 'a.test#17', lease_epoch: 3, url: 'http://a.test/sitemap.xml', host: 'a.test', reason: 'lease-cut',
  detail: 'a.test#17: 429', returned_at: AT,
};

const SAMPLES: Record<SchemaName, object> = {
  'discovered-url': discovered, 'canonical-url': canonical, 'fetch-request': request, 'fetch-result': result,
  'parsed-page': parsed, 'simhash-band': band, duplicate, 'skipped-url': skipped, 'unfetched-url': unfetched,
};

/** avsc decodes records into instances of generated classes; compare plain data. */
function plain(v: unknown): unknown {
  if (Buffer.isBuffer(v)) return Buffer.from(v);
  if (Array.isArray(v)) return v.map(plain);
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
}

function fieldNames(schema: avro.Schema): string[] {
  return (schema as { fields: { name: string }[] }).fields.map((f) => f.name).sort();
}

describe('Avro schemas', () => {
  it('should ship exactly the listed .avsc files, each parsing on its own', () => {
    const files = readdirSync(SCHEMA_DIR).filter((f) => f.endsWith('.avsc')).map((f) => f.slice(0, -5)).sort();
    assert.deepEqual(files, [...SCHEMA_FILES].sort());
    for (const name of files) {
      const schema = JSON.parse(readFileSync(new URL(`${name}.avsc`, SCHEMA_DIR), 'utf8')) as avro.Schema;
      // A fresh registry per file: a schema may not lean on a type named in another file.
      const type = avro.Type.forSchema(schema, { registry: {} });
      assert.equal(type.typeName, 'record', name);
      assert.ok(String(type.name).startsWith('crawlstream.'), `${name} is in the crawlstream namespace`);
    }
  });

  it('should give every crawl topic one of these schemas, each with a sample here', () => {
    for (const t of crawlTopology().topics.values()) {
      if (t.name === 'dead-letters') continue; // the engine's own
      const file = SCHEMA_FILES.find((f) => loadSchema(f) === t.schema);
      assert.ok(file && SAMPLES[file], `${t.name} has a schema file with a sample`);
    }
  });

  for (const name of SCHEMA_FILES) {
    it(`should round-trip a fully populated ${name} record without losing or adding a field`, () => {
      const sample = SAMPLES[name];
      const schema = loadSchema(name);
      assert.deepEqual(Object.keys(sample).sort(), fieldNames(schema), 'records.ts and the .avsc declare the same fields');
      const type = avro.Type.forSchema(schema);
      const problems: string[] = [];
      assert.ok(type.isValid(sample, { errorHook: (path) => problems.push(path.join('.')) }), `invalid: ${problems.join(', ')}`);
      const decoded = type.fromBuffer(type.toBuffer(sample));
      assert.deepEqual(plain(decoded), plain(sample));
    });
  }

  it('should declare the nested Link record with the fields of records.ts', () => {
    const links = (loadSchema('parsed-page') as { fields: { name: string; type: unknown }[] }).fields.find((f) => f.name === 'links')!;
    const item = (links.type as { items: avro.Schema }).items;
    assert.deepEqual(fieldNames(item), Object.keys(parsed.links[0]).sort());
  });

  it('should declare the nested HeaderLine record with the fields of records.ts, for both header lists', () => {
    const fields = (loadSchema('fetch-result') as { fields: { name: string; type: unknown }[] }).fields;
    const requestHeaders = fields.find((f) => f.name === 'request_headers')!;
    const item = (requestHeaders.type as { items: avro.Schema }).items;
    assert.deepEqual(fieldNames(item), Object.keys(result.request_headers[0]).sort());
    const decoded = avro.Type.forSchema(loadSchema('fetch-result')).fromBuffer(avro.Type.forSchema(loadSchema('fetch-result')).toBuffer(result)) as FetchResult;
    assert.deepEqual(plain(decoded.response_headers), plain(result.response_headers), 'order, case and repeats kept');
  });

  it('should declare the batch entries of discovered-url and canonical-url with the fields of records.ts', () => {
    for (const [name, sample] of [['discovered-url', discovered], ['canonical-url', canonical]] as const) {
      const more = (loadSchema(name) as { fields: { name: string; type: unknown }[] }).fields.find((f) => f.name === 'more')!;
      assert.deepEqual(fieldNames((more.type as { items: avro.Schema }).items), Object.keys(sample.more[0]).sort(), name);
    }
  });

  it('should declare a lease\'s entries with the fields of records.ts', () => {
    const more = (loadSchema('fetch-request') as { fields: { name: string; type: unknown }[] }).fields.find((f) => f.name === 'more')!;
    assert.deepEqual(fieldNames((more.type as { items: avro.Schema }).items), Object.keys(request.more[0]).sort());
  });

  it('should read a record written before batches existed as a batch of its one URL', () => {
    // The schemas as they were before `more` (copied from git history, DiscoveredUrl and CanonicalUrl
    // before batching): replays and logs written then must read the same today.
    const kind = { type: 'enum', name: 'DiscoveryKind', symbols: ['seed', 'link', 'redirect', 'sitemap', 'recrawl'], default: 'link' };
    const hints = [
      { name: 'priority_hint', type: 'double', default: -1 }, { name: 'changefreq', type: 'string', default: '' },
      { name: 'lastmod', type: 'long', default: 0 }, { name: 'sitemap_depth', type: 'int', default: 0 },
    ];
    const oldDiscovered = { type: 'record', name: 'DiscoveredUrl', namespace: 'crawlstream', fields: [
      { name: 'url', type: 'string' }, { name: 'source_url', type: 'string', default: '' }, { name: 'depth', type: 'int', default: 0 },
      { name: 'anchor', type: 'string', default: '' }, { name: 'via', type: kind, default: 'link' }, { name: 'redirect_hops', type: 'int', default: 0 },
      { name: 'discovered_at', type: 'long' }, ...hints,
    ] };
    const oldCanonical = { type: 'record', name: 'CanonicalUrl', namespace: 'crawlstream', fields: [
      { name: 'url', type: 'string' }, { name: 'host', type: 'string' }, { name: 'depth', type: 'int', default: 0 },
      { name: 'source_url', type: 'string', default: '' }, { name: 'via', type: kind, default: 'link' }, { name: 'redirect_hops', type: 'int', default: 0 },
      { name: 'discovered_at', type: 'long' }, ...hints, { name: 'inlinks', type: 'int', default: 1 },
    ] };
    const readOld = <T>(oldSchema: object, name: SchemaName, value: object): T => {
      const writer = avro.Type.forSchema(oldSchema as avro.Schema, { registry: {} });
      const reader = avro.Type.forSchema(loadSchema(name), { registry: {} });
      return reader.fromBuffer(writer.toBuffer(value), reader.createResolver(writer)) as T;
    };
    const { more: _d, ...oneDiscovered } = discovered;
    const d = readOld<DiscoveredUrl>(oldDiscovered, 'discovered-url', oneDiscovered);
    assert.deepEqual(plain(d), plain({ ...oneDiscovered, score: -1, more: [] }));
    assert.deepEqual(discoveredEntries(d).map((e) => [e.url, e.anchor, e.priority_hint]), [[discovered.url, discovered.anchor, discovered.priority_hint]]);
    const { more: _c, ...oneCanonical } = canonical;
    const c = readOld<CanonicalUrl>(oldCanonical, 'canonical-url', oneCanonical);
    assert.deepEqual(plain(c), plain({ ...oneCanonical, score: -1, more: [] }));
    assert.deepEqual(canonicalEntries(c).map((e) => [e.url, e.sitemap_depth]), [[canonical.url, canonical.sitemap_depth]]);
  });

  it('should let today\'s schemas read records written before any defaulted field existed', () => {
    // A defaulted field is one that may have been added later: an older writer's record lacks it and
    // a reader must fill it in from the default (Avro schema resolution), for every topic.
    for (const name of SCHEMA_FILES) {
      const schema = loadSchema(name) as { fields: { name: string; default?: unknown }[] };
      const older = { ...schema, fields: schema.fields.filter((f) => !('default' in f)) };
      const writer = avro.Type.forSchema(older as avro.Schema, { registry: {} });
      const reader = avro.Type.forSchema(schema as avro.Schema, { registry: {} });
      const sample = SAMPLES[name] as Record<string, unknown>;
      const old = Object.fromEntries(older.fields.map((f) => [f.name, sample[f.name]]));
      const read = reader.fromBuffer(writer.toBuffer(old), reader.createResolver(writer)) as Record<string, unknown>;
      for (const f of (reader as avro.types.RecordType).fields) {
        const expected = older.fields.some((o) => o.name === f.name) ? sample[f.name] : f.defaultValue();
        assert.deepEqual(plain(read[f.name]), plain(expected), `${name}.${f.name}`);
      }
    }
  });
});
