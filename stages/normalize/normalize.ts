// normalize: discovered-urls → normalized, and skipped. Turns each URL of a batch as found into its
// canonical form and applies the cheap trap guards and the scope; rejected URLs are counted by reason
// and leave a `skipped` row per batch (a source page's URLs to one host) and reason, with how many and
// the first of them; the rest go on as one record per canonical host.
import { defineProcessor, type Processor, type ProcessorContext, type RecordOf, type TopicValues } from '../../engine/api.js';
import type { CanonicalEntry } from '../../schemas/records.js';
import type { CrawlConfig } from '../../contract/config.js';
import { discoveredUrls, normalized, skipped } from '../../contract/topics.js';
import { canonicalize } from '../../url/canonicalize.js';
import { trapReason } from '../../url/traps.js';
import { compileScope, type Scope } from '../../scope/scope.js';
import { canonicalBatches, discoveredEntries, groupBy } from '../../contract/url-batch.js';

const inputs = [discoveredUrls] as const;
const outputs = [normalized, skipped] as const;
type In = TopicValues<typeof inputs>;
type Out = TopicValues<typeof outputs>;

class Normalize implements Processor<In, Out> {
  private readonly scope: Scope;

  constructor(private readonly config: CrawlConfig) {
    this.scope = compileScope(config.scope);
  }

  process(record: RecordOf<In>, ctx: ProcessorContext<Out>): void {
    const found = record.value;
    const { config } = this;
    const entries = discoveredEntries(found);
    const dropped = new Dropped(record.key, found);
    // Depth and redirect hops are shared by the whole batch.
    if (found.depth > config.maxDepth) {
      dropped.add('max-depth', found.url, entries.length, `depth ${found.depth} > --max-depth ${config.maxDepth}`);
      return dropped.report(ctx);
    }
    if (found.redirect_hops > config.maxRedirects) {
      dropped.add('too-many-redirects', found.url, entries.length, `${found.redirect_hops} redirect hops > ${config.maxRedirects}`);
      return dropped.report(ctx);
    }
    const accepted: { host: string; entry: CanonicalEntry }[] = [];
    for (const e of entries) {
      const c = this.canonical(e.url, ctx);
      if (!c.ok) {
        dropped.add(c.reason, e.url);
        continue;
      }
      accepted.push({ host: c.host, entry: { url: c.url, priority_hint: e.priority_hint, changefreq: e.changefreq, lastmod: e.lastmod, sitemap_depth: e.sitemap_depth, inlinks: 1, score: e.score } });
    }
    dropped.report(ctx);
    if (accepted.length > 0) ctx.metrics.count('normalized', accepted.length);
    // Canonicalization can change the host key (case, default port, IDN): regroup by canonical host,
    // since each normalized record must reach the dedup task that owns its host.
    for (const [host, group] of groupBy(accepted, (a) => a.host)) {
      const shared = {
        host, depth: found.depth, source_url: found.source_url, via: found.via, redirect_hops: found.redirect_hops,
        discovered_at: found.discovered_at,
      };
      for (const batch of canonicalBatches(shared, group.map((a) => a.entry))) ctx.forward('normalized', host, batch);
    }
  }

  /** The canonical form of one URL of a batch, or why it is refused; one bad URL never costs the batch. */
  private canonical(raw: string, ctx: ProcessorContext<Out>): { ok: true; url: string; host: string } | { ok: false; reason: string } {
    try {
      const canonical = canonicalize(raw, { maxLength: this.config.maxUrlLength });
      if (!canonical.ok) return canonical;
      const trap = trapReason(canonical.url, this.config);
      if (trap) return { ok: false, reason: trap };
      const scope = this.scope.decide(canonical.url, canonical.host);
      if (!scope.ok) return { ok: false, reason: scope.reason };
      return { ok: true, url: canonical.url, host: canonical.host };
    } catch (err) {
      ctx.logger.warn(`normalize: ${JSON.stringify(raw.slice(0, 200))} could not be normalized (${(err as Error).message}); skipped`);
      return { ok: false, reason: 'error' };
    }
  }
}

/** A batch's rejections by reason: counted, and one `skipped` row per reason with the first URL as its sample. */
class Dropped {
  private readonly byReason = new Map<string, { url: string; count: number; detail: string }>();

  constructor(private readonly host: string, private readonly found: { depth: number; source_url: string }) {}

  add(reason: string, url: string, count = 1, detail = ''): void {
    const seen = this.byReason.get(reason);
    if (seen) seen.count += count;
    else this.byReason.set(reason, { url, count, detail });
  }

  report(ctx: ProcessorContext<Out>): void {
    for (const [reason, { url, count, detail }] of this.byReason) {
      ctx.metrics.count(`rejected.${reason}`, count);
      ctx.forward('skipped', this.host, {
        url: url.slice(0, 4096), host: this.host, reason, detail: detail || (count > 1 ? `${count} URLs of this page, the first shown` : ''),
        depth: this.found.depth, source_url: this.found.source_url, decided_at: ctx.now(), url_count: count,
      });
    }
  }
}

export const normalizeProcessor = defineProcessor({
  name: 'normalize',
  description: 'Canonical URL form (case, ports, dot segments, percent-encoding, sorted query, tracking and session parameters, IDN) and trap guards (depth, redirects, length, repeated segments, query explosion).',
  inputs,
  outputs,
  stores: [],
  delivery: 'Stateless: a batch is normalized again after a crash only if its outputs were not committed, so each URL reaches dedup once per discovery.',
  create: (s: { config: CrawlConfig }) => new Normalize(s.config),
});
