// normalize: discovered-urls → normalized. Turns a URL as found into its canonical form and applies
// the cheap trap guards; rejected URLs are counted by reason and not forwarded.
import { defineProcessor, type Processor, type ProcessorContext, type RecordOf, type TopicValues } from '../engine/api.js';
import type { CanonicalUrl } from '../schemas/records.js';
import type { CrawlConfig } from '../crawl/config.js';
import { discoveredUrls, normalized } from '../crawl/topics.js';
import { canonicalize } from '../url/canonicalize.js';
import { trapReason } from '../url/traps.js';
import { compileScope, type Scope } from '../scope/scope.js';

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
    if (found.depth > config.maxDepth) return reject(ctx, 'max-depth');
    if (found.redirect_hops > config.maxRedirects) return reject(ctx, 'too-many-redirects');
    const canonical = canonicalize(found.url, { maxLength: config.maxUrlLength });
    if (!canonical.ok) return reject(ctx, canonical.reason);
    const trap = trapReason(canonical.url, config);
    if (trap) return reject(ctx, trap);
    const scope = this.scope.decide(canonical.url, canonical.host);
    if (!scope.ok) return reject(ctx, scope.reason);
    const out: CanonicalUrl = {
      url: canonical.url,
      host: canonical.host,
      depth: found.depth,
      source_url: found.source_url,
      via: found.via,
      redirect_hops: found.redirect_hops,
      discovered_at: found.discovered_at,
      priority_hint: found.priority_hint,
      changefreq: found.changefreq,
      lastmod: found.lastmod,
      sitemap_depth: found.sitemap_depth,
      inlinks: 1,
    };
    ctx.metrics.count('normalized');
    ctx.forward('normalized', canonical.host, out);
  }
}

function reject(ctx: ProcessorContext<Out>, reason: string): void {
  ctx.metrics.count(`rejected.${reason}`);
}

export const normalizeProcessor = defineProcessor({
  name: 'normalize',
  description: 'Canonical URL form (case, ports, dot segments, percent-encoding, sorted query, tracking and session parameters, IDN) and trap guards (depth, redirects, length, repeated segments, query explosion).',
  inputs,
  outputs,
  stores: [],
  delivery: 'Stateless: a record is normalized again after a crash only if its output was not committed, so each URL reaches dedup once per discovery.',
  create: (s: { config: CrawlConfig }) => new Normalize(s.config),
});
