// Command-line options shared by commands, parsed strictly: a bad value is a clear error, not a default.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { defaultCrawlConfig, productTokenOf, type CrawlConfig } from '../crawl/config.js';

export class UsageError extends Error {}

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;

export const CRAWL_LEVEL_FLAGS: OptionSpec = {
  'user-agent': { type: 'string' },
  'max-depth': { type: 'string' },
  'max-pages': { type: 'string' },
  'max-pages-per-host': { type: 'string' },
  'default-delay-ms': { type: 'string' },
  'fetch-timeout-ms': { type: 'string' },
};

export function parse(argv: string[], options: OptionSpec): { values: Record<string, unknown>; positionals: string[] } {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true }) as never;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

export function intOption(values: Record<string, unknown>, name: string, min = 0): number | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`--${name} must be an integer ≥ ${min}, got "${raw}"`);
  return n;
}

/** Crawl-level options from flags, on top of defaults (or of a stored config). */
export function crawlConfigFrom(values: Record<string, unknown>, base: Partial<CrawlConfig> = {}): CrawlConfig {
  const overrides: Partial<CrawlConfig> = { ...base };
  const ua = values['user-agent'] as string | undefined;
  if (ua !== undefined) {
    if (!ua.trim()) throw new UsageError('--user-agent must not be empty');
    overrides.userAgent = ua;
    overrides.productToken = productTokenOf(ua);
  }
  const set = (flag: string, key: keyof CrawlConfig, min = 0) => {
    const n = intOption(values, flag, min);
    if (n !== undefined) (overrides as Record<string, unknown>)[key] = n;
  };
  set('max-depth', 'maxDepth');
  set('max-pages', 'maxPages');
  set('max-pages-per-host', 'maxPagesPerHost', 1);
  set('default-delay-ms', 'defaultDelayMs');
  set('fetch-timeout-ms', 'fetchTimeoutMs', 1);
  const config = defaultCrawlConfig(overrides);
  // Connect and header timeouts never exceed the total one.
  config.connectTimeoutMs = Math.min(config.connectTimeoutMs, config.fetchTimeoutMs);
  config.headersTimeoutMs = Math.min(config.headersTimeoutMs, config.fetchTimeoutMs);
  return config;
}

export function listOption(values: Record<string, unknown>, name: string): string[] {
  const v = values[name];
  if (v === undefined) return [];
  return (Array.isArray(v) ? v : [v]).flatMap((s: string) => s.split(',')).map((s) => s.trim()).filter(Boolean);
}
