// normalize: discovered-urls → normalized. Turns each URL of a batch as found into its canonical form
// and applies the cheap trap guards; rejected URLs are counted by reason and not forwarded, the rest
// go on as one record per canonical host.
import { defineProcessor, type Processor, type ProcessorContext, type RecordOf, type TopicValues } from '../../engine/api.js';
import type { CanonicalEntry } from '../../schemas/records.js';
import type { CrawlConfig } from '../../contract/config.js';
import { discoveredUrls, normalized } from '../../contract/topics.js';
import { canonicalize } from '../../url/canonicalize.js';
import { trapReason } from '../../url/traps.js';
import { compileScope, type Scope } from '../../scope/scope.js';
import { canonicalBatches, discoveredEntries, groupBy } from '../../contract/url-batch.js';

const inputs = [discoveredUrls] as const;
const outputs = [normalized] as const;
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
    // Depth and redirect hops are shared by the whole batch.
    if (found.depth > config.maxDepth) return reject(ctx, 'max-depth', entries.length);
    if (found.redirect_hops > config.maxRedirects) return reject(ctx, 'too-many-redirects', entries.length);
    const accepted: { host: string; entry: CanonicalEntry }[] = [];
    for (const e of entries) {
      const c = this.canonical(e.url, ctx);
      if (!c.ok) {
        reject(ctx, c.reason);
        continue;
      }
      accepted.push({ host: c.host, entry: { url: c.url, priority_hint: e.priority_hint, changefreq: e.changefreq, lastmod: e.lastmod, sitemap_depth: e.sitemap_depth, inlinks: 1, score: e.score } });
    }
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
      ctx.log.warn(`normalize: ${JSON.stringify(raw.slice(0, 200))} could not be normalized (${(err as Error).message}); skipped`);
      return { ok: false, reason: 'error' };
    }
  }
}

function reject(ctx: ProcessorContext<Out>, reason: string, urls = 1): void {
  ctx.metrics.count(`rejected.${reason}`, urls);
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
