// Command-line options shared by commands, parsed strictly: a bad value is a clear error, not a default.
import { existsSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { defaultCrawlConfig, productTokenOf, type CrawlConfig } from '../contract/config.js';
import { VIRTUAL_BUCKETS } from '../engine/partitioning.js';
import { DurationError, formatDuration, parseDuration } from './duration.js';
import { compileScope, SCOPE_MODES, type ScopeConfig, type ScopeMode } from '../scope/scope.js';
import { parseCaPem, TLS_VERIFY_MODES, type TlsVerify } from '../fetching/tls-policy.js';
import { ProxyRoute } from '../fetching/proxy-route.js';

export { parseDuration, formatDuration } from './duration.js';

export class UsageError extends Error {}

/** Inclusive range of a numeric option; `why` explains the maximum when a value passes it. */
export interface Bounds { min: number; max: number; why?: string }

/** Node timers fire at once for delays above 2^31-1 ms (about 24.8 days): a delay option's max must stay below. */
export const TIMER_MAX_MS = 2 ** 31 - 1;
const DAY_MS = 86_400_000;

/** The range of every numeric option of every command, in one place so each bound is tested. */
export const LIMITS = {
  maxDepth: { min: 0, max: 1_000 },
  maxPages: { min: 0, max: 1e12 }, // 0 means no limit
  maxPagesPerHost: { min: 1, max: 1e9 },
  defaultDelayMs: { min: 0, max: DAY_MS, why: 'a delay over a day between two requests to one host is a mistake' },
  fetchTimeoutMs: { min: 100, max: 3_600_000, why: 'a single request may take at most an hour' },
  /** Hosts hash to VIRTUAL_BUCKETS buckets: partitions beyond that would stay empty. */
  kafkaPartitions: { min: 1, max: VIRTUAL_BUCKETS, why: `hosts hash to ${VIRTUAL_BUCKETS} buckets, so more partitions would stay empty` },
  /**
   * An embedded crawl keeps one open file per topic and partition (9 topics) next to LevelDB's: 64
   * partitions stay under the common 1024-descriptor limit, and one process gains nothing from more.
   */
  embeddedPartitions: { min: 1, max: 64, why: 'an embedded crawl keeps 9 files open per partition and one process gains nothing from more; use Kafka mode for more' },
  /** Kafka brokers refuse session timeouts outside group.min/max.session.timeout.ms (6 s..30 min by default). */
  sessionTimeoutMs: { min: 1_000, max: 1_800_000, why: 'Kafka brokers refuse session timeouts over 30 minutes by default' },
  fromOffset: { min: 0, max: Number.MAX_SAFE_INTEGER },
  /** status --wait-idle and scale give up after this long. */
  waitTimeoutMs: { min: 1_000, max: 7 * DAY_MS },
  /** replay --since DUR: how far back. */
  sinceMs: { min: 1, max: 3_650 * DAY_MS },
  /** --recrawl-min-interval / --recrawl-max-interval: due times are checked by timers of their own, not one setTimeout. */
  recrawlIntervalMs: { min: 100, max: 3_650 * DAY_MS },
  /** Nutch's fetcher.max.crawl.delay defaults to 30 s; a day between two requests is no crawl at all. */
  maxCrawlDelayMs: { min: 0, max: DAY_MS },
  runForMs: { min: 1, max: 3_650 * DAY_MS },
  maxInFlightPerIp: { min: 1, max: 1_000 },
  renderConcurrency: { min: 1, max: 64 },
  /** 0 picks a free port (the log line says which). */
  metricsPort: { min: 0, max: 65_535 },
  /** --metrics-linger: long enough for a scrape interval or two; a timer, so below TIMER_MAX_MS. */
  metricsLingerMs: { min: 1, max: DAY_MS },
  /** --stop-grace: 0 stops at once, committing only what is finished; a timer, so below TIMER_MAX_MS. */
  stopGraceMs: { min: 0, max: DAY_MS },
  /** worker --commit-interval: each hop of a record waits up to this long; past a minute a transaction nears the broker's timeout. */
  commitIntervalMs: { min: 10, max: 60_000, why: 'an open transaction must end well within the broker\'s transaction timeout (60 s)' },
  /**
   * worker --threads: each thread is a worker of its own (consumer groups, transactions, state); more
   * threads than cores only add group members and memory.
   */
  workerThreads: { min: 1, max: 256 },
  /** worker --handover-grace: how long a new owner waits for a silent previous owner before fencing it. */
  handoverGraceMs: { min: 100, max: 600_000 },
  /** --module-timeout: a user module's init or process, or one page's parse, that takes longer is ended. */
  moduleTimeoutMs: { min: 100, max: DAY_MS },
} as const satisfies Record<string, Bounds>;

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;

export const CRAWL_LEVEL_FLAGS: OptionSpec = {
  'user-agent': { type: 'string' },
  'max-depth': { type: 'string' },
  'max-pages': { type: 'string' },
  'max-pages-per-host': { type: 'string' },
  'default-delay-ms': { type: 'string' },
  'fetch-timeout-ms': { type: 'string' },
  'max-crawl-delay': { type: 'string' },
  recrawl: { type: 'boolean' },
  'recrawl-min-interval': { type: 'string' },
  'recrawl-max-interval': { type: 'string' },
  'no-sitemaps': { type: 'boolean' },
  scope: { type: 'string' },
  include: { type: 'string', multiple: true },
  exclude: { type: 'string', multiple: true },
  'max-in-flight-per-ip': { type: 'string' },
  resolve: { type: 'string', multiple: true },
  render: { type: 'string' },
  'ca-file': { type: 'string' },
  'tls-verify': { type: 'string' },
};

/** Process-level network options (crawl, worker): which proxy. */
export const PROXY_FLAGS: OptionSpec = {
  proxy: { type: 'string' },
};

/** --proxy URL, checked together with the proxy environment variables it is used with. */
export function proxyOption(values: Record<string, unknown>): string {
  const flag = (values.proxy as string | undefined) ?? '';
  try {
    new ProxyRoute(flag || undefined);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  return flag;
}

/** Process-level rendering options (crawl, worker): which Chromium, how many pages at once. */
export const RENDER_PROCESS_FLAGS: OptionSpec = {
  chromium: { type: 'string' },
  'render-concurrency': { type: 'string' },
};

export function parse(argv: string[], options: OptionSpec): { values: Record<string, unknown>; positionals: string[] } {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true }) as never;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** A whole number in decimal digits within `bounds`; "1e3", "0x10", "+5" and "" are refused. */
export function intOption(values: Record<string, unknown>, name: string, bounds: Bounds): number | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const text = String(raw);
  const range = `an integer from ${bounds.min} to ${bounds.max}`;
  if (!/^\d{1,16}$/.test(text)) throw new UsageError(`--${name} must be ${range}, got "${text.slice(0, 40)}"`);
  const n = Number(text);
  if (n < bounds.min) throw new UsageError(`--${name} must be ${range}, got ${n}`);
  if (n > bounds.max) throw new UsageError(`--${name} must be ${range}, got ${n}${bounds.why ? ` (${bounds.why})` : ''}`);
  return n;
}

/**
 * Milliseconds of a duration option (grammar of parseDuration: 500ms, 30s, 5m, 1.5h, 7d) within
 * `bounds` (in ms; a value used as a timer delay needs max ≤ TIMER_MAX_MS). `plainNumbersIn` keeps a
 * legacy flag working: a bare integer is read in that unit.
 * @throws UsageError naming the flag, the range and what was wrong.
 */
export function durationOption(
  values: Record<string, unknown>,
  name: string,
  bounds: Bounds & { plainNumbersIn?: 'ms' | 's' },
): number | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const text = String(raw).trim();
  const range = `a duration from ${formatDuration(bounds.min)} to ${formatDuration(bounds.max)}`;
  let ms: number;
  try {
    ms = bounds.plainNumbersIn && /^\d{1,16}$/.test(text) ? parseDuration(text + bounds.plainNumbersIn) : parseDuration(text);
  } catch (err) {
    if (!(err instanceof DurationError)) throw err;
    throw new UsageError(`--${name} must be ${range}: ${err.message}`);
  }
  if (ms < bounds.min) throw new UsageError(`--${name} must be ${range}, got ${text}`);
  if (ms > bounds.max) {
    throw new UsageError(`--${name} must be ${range}, got ${text}${bounds.why ? ` (${bounds.why})` : ''}`);
  }
  return ms;
}

/** Crawl-level options from flags, on top of defaults (or of a stored config); `seeds` anchor --scope. */
export function crawlConfigFrom(values: Record<string, unknown>, base: Partial<CrawlConfig> = {}, seeds: string[] = []): CrawlConfig {
  const overrides: Partial<CrawlConfig> = { ...base };
  const ua = values['user-agent'] as string | undefined;
  if (ua !== undefined) {
    if (!ua.trim()) throw new UsageError('--user-agent must not be empty');
    overrides.userAgent = ua;
    overrides.productToken = productTokenOf(ua);
  }
  const set = (flag: string, key: keyof CrawlConfig, bounds: Bounds) => {
    const n = intOption(values, flag, bounds);
    if (n !== undefined) (overrides as Record<string, unknown>)[key] = n;
  };
  set('max-depth', 'maxDepth', LIMITS.maxDepth);
  set('max-pages', 'maxPages', LIMITS.maxPages);
  set('max-pages-per-host', 'maxPagesPerHost', LIMITS.maxPagesPerHost);
  set('default-delay-ms', 'defaultDelayMs', LIMITS.defaultDelayMs);
  set('fetch-timeout-ms', 'fetchTimeoutMs', LIMITS.fetchTimeoutMs);
  set('max-in-flight-per-ip', 'maxInFlightPerIp', LIMITS.maxInFlightPerIp);
  if (values.render !== undefined) {
    if (!['never', 'auto', 'always'].includes(values.render as string)) throw new UsageError(`--render must be never, auto or always, got "${values.render}"`);
    overrides.render = values.render as CrawlConfig['render'];
  }
  if (values.resolve !== undefined) overrides.resolve = { ...base.resolve, ...resolveOption(values.resolve as string[]) };
  if (values['tls-verify'] !== undefined) {
    const mode = values['tls-verify'] as string;
    if (!(TLS_VERIFY_MODES as readonly string[]).includes(mode)) throw new UsageError(`--tls-verify must be on, record or off, got "${mode}"`);
    overrides.tlsVerify = mode as TlsVerify;
  }
  if (values['ca-file'] !== undefined) overrides.caPem = caFileOption(values['ca-file'] as string);
  const duration = (flag: string, key: keyof CrawlConfig, bounds: Bounds) => {
    const ms = durationOption(values, flag, bounds);
    if (ms !== undefined) (overrides as Record<string, unknown>)[key] = ms;
  };
  duration('max-crawl-delay', 'maxCrawlDelayMs', LIMITS.maxCrawlDelayMs);
  duration('recrawl-min-interval', 'recrawlMinIntervalMs', LIMITS.recrawlIntervalMs);
  duration('recrawl-max-interval', 'recrawlMaxIntervalMs', LIMITS.recrawlIntervalMs);
  if (values.recrawl === true) overrides.recrawl = true;
  if (values['no-sitemaps'] === true) overrides.sitemaps = false;
  overrides.scope = scopeFrom(values, base.scope, seeds);
  const config = defaultCrawlConfig(overrides);
  if (config.recrawlMinIntervalMs > config.recrawlMaxIntervalMs) {
    throw new UsageError(`--recrawl-min-interval (${formatDuration(config.recrawlMinIntervalMs)}) is above --recrawl-max-interval (${formatDuration(config.recrawlMaxIntervalMs)})`);
  }
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

/** --scope any|domain|host, --include, --exclude: the seeds of every `seed` of a crawl anchor the scope. */
function scopeFrom(values: Record<string, unknown>, base: ScopeConfig | undefined, seeds: string[]): ScopeConfig {
  const mode = (values.scope as string | undefined) ?? base?.mode ?? 'any';
  if (!(SCOPE_MODES as readonly string[]).includes(mode)) throw new UsageError(`--scope must be one of ${SCOPE_MODES.join(', ')}, got "${mode}"`);
  const pick = (flag: string, old: string[] | undefined) => (values[flag] === undefined ? old ?? [] : (values[flag] as string[]));
  const config: ScopeConfig = {
    mode: mode as ScopeMode,
    seeds: [...new Set([...(base?.seeds ?? []), ...seeds])],
    include: pick('include', base?.include),
    exclude: pick('exclude', base?.exclude),
  };
  try {
    return compileScope(config).config;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** --ca-file FILE: its certificates, checked, as PEM text (what `seed` hands every worker). */
function caFileOption(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(`--ca-file ${path}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
  }
  try {
    return parseCaPem(text, `--ca-file ${path}`).join('\n') + '\n';
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** --resolve HOST=IP (repeatable): a host name pinned to an address. */
export function resolveOption(entries: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of entries) {
    const m = /^([^=\s]+)=([0-9a-fA-F.:]+)$/.exec(entry.trim());
    const ip = m?.[2].replace(/^\[|\]$/g, '');
    if (!m || !ip || isIP(ip) === 0) throw new UsageError(`--resolve takes HOST=IP (e.g. --resolve shop.test=127.0.0.5), got "${entry}"`);
    out[m[1].toLowerCase()] = ip;
  }
  return out;
}

/** --chromium and --render-concurrency, checked; the Chromium binary must exist when given. */
export function renderProcessOptions(values: Record<string, unknown>): { chromiumPath?: string; renderConcurrency?: number } {
  const chromiumPath = values.chromium as string | undefined;
  if (chromiumPath !== undefined && !existsSync(chromiumPath)) throw new UsageError(`--chromium ${chromiumPath}: no such file`);
  return { chromiumPath, renderConcurrency: intOption(values, 'render-concurrency', LIMITS.renderConcurrency) };
}
