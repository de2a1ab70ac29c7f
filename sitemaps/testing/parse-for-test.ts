// Test helper: runs a whole input through SitemapParser in chunks of the given size.
import { SitemapParser, type SitemapParserOptions, type SitemapSummary } from '../sitemap-parser.js';
import type { SitemapEntry } from '../entry-fields.js';

export const SITEMAP_URL = 'http://site.test/sitemap.xml';

export interface ParseResult {
  urls: SitemapEntry[];
  sitemaps: { loc: string; lastmod?: number }[];
  summary: SitemapSummary;
}

export function parseInChunks(
  input: string | Uint8Array,
  chunkSize = Number.MAX_SAFE_INTEGER,
  options: Partial<SitemapParserOptions> = {},
): ParseResult {
  const bytes = typeof input === 'string' ? Buffer.from(input, 'utf8') : input;
  const urls: SitemapEntry[] = [];
  const sitemaps: { loc: string; lastmod?: number }[] = [];
  const parser = new SitemapParser({
    sitemapUrl: SITEMAP_URL,
    onUrl: (e) => urls.push(e),
    onSitemap: (loc, lastmod) => sitemaps.push(lastmod === undefined ? { loc } : { loc, lastmod }),
    ...options,
  });
  for (let at = 0; at < bytes.length; at += chunkSize) parser.write(bytes.subarray(at, Math.min(at + chunkSize, bytes.length)));
  return { urls, sitemaps, summary: parser.end() };
}
