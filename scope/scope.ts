// Which discovered URLs enter the frontier: --scope any|domain|host plus --include / --exclude.
//
// decide() takes the canonical URL and its hostKey (url/canonicalize.ts) and answers, in this order:
//   1. a seed URL itself is always in scope, whatever the patterns say;
//   2. mode host: the host (port included) must be one of the seeds' hosts      -> out-of-scope-host
//      mode domain: its registrable domain (port ignored, see registrable-domain.ts) must be one of
//      the seeds' domains                                                         -> out-of-scope-domain
//      mode any: every host;
//   3. a URL matching any --exclude pattern is out: exclude wins over include     -> excluded
//   4. when --include patterns are given, the URL must match at least one         -> not-included
// The config is plain JSON (it travels to the Kafka workers); compileScope validates it and throws a
// ScopeConfigError that says what is wrong.
import { canonicalize } from '../url/canonicalize.js';
import { compilePattern, MAX_PATTERNS, PatternError, type UrlMatcher } from './url-pattern.js';
import { hostnameOf, registrableDomain } from './registrable-domain.js';

export const SCOPE_MODES = ['any', 'domain', 'host'] as const;
export type ScopeMode = (typeof SCOPE_MODES)[number];

export interface ScopeConfig {
  mode: ScopeMode;
  seeds: string[];
  include: string[];
  exclude: string[];
}

export type ScopeRejection = 'out-of-scope-host' | 'out-of-scope-domain' | 'excluded' | 'not-included';
export type ScopeDecision = { ok: true } | { ok: false; reason: ScopeRejection };

export interface Scope {
  /** The validated config, safe to JSON.stringify and compile again elsewhere. */
  readonly config: ScopeConfig;
  decide(canonicalUrl: string, host: string): ScopeDecision;
}

export class ScopeConfigError extends Error {}

const OK: ScopeDecision = Object.freeze({ ok: true });
const REJECTIONS = Object.fromEntries(
  (['out-of-scope-host', 'out-of-scope-domain', 'excluded', 'not-included'] as const).map((r) => [r, Object.freeze({ ok: false, reason: r })]),
) as Record<ScopeRejection, ScopeDecision>;

export function compileScope(input: ScopeConfig): Scope {
  const config = parseScopeConfig(input);
  const seedUrls = new Set<string>();
  const seedHosts = new Set<string>();
  const seedDomains = new Set<string>();
  for (const seed of config.seeds) {
    const c = canonicalize(seed);
    if (!c.ok) throw new ScopeConfigError(`seed ${JSON.stringify(seed)} is not a crawlable URL: ${c.reason} (${c.detail})`);
    seedUrls.add(c.url);
    seedHosts.add(c.host);
    seedDomains.add(registrableDomain(c.host));
  }
  const include = compileList('--include', config.include);
  const exclude = compileList('--exclude', config.exclude);

  const decide = (canonicalUrl: string, host: string): ScopeDecision => {
    if (seedUrls.has(canonicalUrl)) return OK;
    if (config.mode === 'host' && !seedHosts.has(host.toLowerCase())) return REJECTIONS['out-of-scope-host'];
    if (config.mode === 'domain' && !seedDomains.has(registrableDomain(host))) return REJECTIONS['out-of-scope-domain'];
    if (exclude.some((m) => m(canonicalUrl))) return REJECTIONS.excluded;
    if (include.length > 0 && !include.some((m) => m(canonicalUrl))) return REJECTIONS['not-included'];
    return OK;
  };
  return Object.freeze({ config, decide });
}

function compileList(flag: string, patterns: string[]): UrlMatcher[] {
  if (patterns.length > MAX_PATTERNS) throw new ScopeConfigError(`${flag}: ${patterns.length} patterns, at most ${MAX_PATTERNS}`);
  return patterns.map((p) => {
    try {
      return compilePattern(p);
    } catch (err) {
      if (err instanceof PatternError) throw new ScopeConfigError(`${flag}: ${err.message}`);
      throw err;
    }
  });
}

/** Validates a config received as JSON; returns a fresh copy with only the known fields. */
export function parseScopeConfig(value: unknown): ScopeConfig {
  if (typeof value !== 'object' || value === null) throw new ScopeConfigError('scope config must be an object');
  const v = value as Record<string, unknown>;
  if (!SCOPE_MODES.includes(v.mode as ScopeMode)) {
    throw new ScopeConfigError(`--scope must be one of ${SCOPE_MODES.join(', ')}, got ${JSON.stringify(v.mode)}`);
  }
  const list = (name: string): string[] => {
    const items = v[name] ?? [];
    if (!Array.isArray(items) || !items.every((s) => typeof s === 'string')) {
      throw new ScopeConfigError(`scope config ${name} must be an array of strings`);
    }
    return [...items];
  };
  const config: ScopeConfig = { mode: v.mode as ScopeMode, seeds: list('seeds'), include: list('include'), exclude: list('exclude') };
  if (config.mode !== 'any' && config.seeds.length === 0) {
    throw new ScopeConfigError(`--scope ${config.mode} needs at least one seed to take hosts from`);
  }
  return config;
}

const DESCRIBE_LIST = 5;

/** One line for logs, e.g. "scope domain of site.test, 127.0.0.1; exclude (none); include (any); seeds always in scope". */
export function describeScope(scope: Scope | ScopeConfig): string {
  const config = 'decide' in scope ? scope.config : scope;
  const short = (items: string[]): string =>
    items.length <= DESCRIBE_LIST ? items.join(', ') : `${items.slice(0, DESCRIBE_LIST).join(', ')} and ${items.length - DESCRIBE_LIST} more`;
  const hosts = [...new Set(config.seeds.map((s) => seedTarget(config.mode, s)))];
  const where = config.mode === 'any' ? 'scope any host' : `scope ${config.mode} of ${short(hosts)}`;
  const include = config.include.length === 0 ? 'include (any)' : `include ${short(config.include)}`;
  const exclude = config.exclude.length === 0 ? 'exclude (none)' : `exclude ${short(config.exclude)}`;
  return `${where}; ${exclude}; ${include}; seeds always in scope`;
}

function seedTarget(mode: ScopeMode, seed: string): string {
  const c = canonicalize(seed);
  if (!c.ok) return seed;
  return mode === 'domain' ? registrableDomain(c.host) : mode === 'host' ? c.host : hostnameOf(c.host);
}
