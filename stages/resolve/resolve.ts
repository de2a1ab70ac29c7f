// resolve: scheduled → resolved (keyed by server address), or fetched when there is nothing to fetch.
// Host names decide ownership, but thousands of names can share one server: re-keying each released
// request by the address it will connect to puts every request to one server in one fetch task, which
// then holds at most --max-in-flight-per-ip of them in flight, across the whole crawl (every task
// embedded, every worker on Kafka). The address travels with the request, and the fetch connects to
// it and no other, so a DNS answer that changes in between cannot route around the limit.
import { defineProcessor, type Processor, type ProcessorContext, type RecordOf, type TopicValues } from '../../engine/api.js';
import { fetched, resolved, scheduled } from '../../contract/topics.js';
import type { HttpFetcher } from '../../fetching/http-fetcher.js';
import type { CrawlObserver } from '../../contract/services.js';
import { PLAIN_RESULT, type FetchRequest, type FetchResult } from '../../schemas/records.js';

const inputs = [scheduled] as const;
const outputs = [resolved, fetched] as const;
type In = TopicValues<typeof inputs>;
type Out = TopicValues<typeof outputs>;

class Resolve implements Processor<In, Out> {
  constructor(private readonly fetcher: HttpFetcher, private readonly observer: CrawlObserver) {}

  async process(record: RecordOf<In>, ctx: ProcessorContext<Out>): Promise<void> {
    const request = record.value;
    let hostname: string;
    try {
      hostname = new URL(request.url).hostname;
    } catch {
      return this.failed(ctx, request, 'protocol', `invalid URL "${request.url.slice(0, 200)}"`);
    }
    const found = await this.fetcher.resolveAddress(hostname, request.url);
    if ('kind' in found) return this.failed(ctx, request, found.kind, found.message);
    // Behind a proxy whose target local DNS cannot resolve, the address is unknown: keyed by name.
    ctx.forward('resolved', found.key ?? found.address, { ...request, address: found.address });
  }

  /** No request can be sent: the outcome goes straight to `fetched`, so the host's slot is freed. */
  private failed(ctx: ProcessorContext<Out>, request: FetchRequest, kind: string, message: string): void {
    ctx.metrics.count(`errors.${kind}`);
    // A fetch attempt that ended before a request could leave (DNS, network policy): counted as one.
    this.observer.fetchDone({ kind: request.kind, status: 0, errorKind: kind, truncated: false, seconds: 0, wireBytes: 0, host: request.host, error: `${kind}: ${message}` });
    const now = ctx.now();
    const result: FetchResult = {
      ...PLAIN_RESULT,
      fetch_id: request.fetch_id, url: request.url, host: request.host, kind: request.kind, depth: request.depth,
      attempt: request.attempt, via: request.via, source_url: request.source_url, redirect_hops: request.redirect_hops,
      status: 0, error: `${kind}: ${message}`, final_url: request.url, redirect_chain: [], headers: {}, started_at: now,
      elapsed_ms: 0, ttfb_ms: 0, bytes: 0, wire_bytes: 0, content_type: '', charset: '', truncated: false, retry_after_ms: 0,
      conditional: false, remote_address: '', body_encoding: 'identity', body: Buffer.alloc(0), changed: false,
      priority: request.priority, sitemap_depth: request.sitemap_depth,
    };
    ctx.forward('fetched', request.host, result);
  }
}

export const resolveProcessor = defineProcessor({
  name: 'resolve',
  description: 'Resolves each released fetch to the server address it will connect to (DNS cache, network policy) and re-keys it by that address.',
  inputs,
  outputs,
  stores: [],
  // Lookups wait on DNS: many at once, one host's requests in order.
  concurrency: { maxInFlight: 256, perKeyOrder: true },
  delivery: 'Stateless: after a crash a released fetch may be resolved again; the fetch stage sends it once per release.',
  create: (s: { fetcher: HttpFetcher; observer: CrawlObserver }) => new Resolve(s.fetcher, s.observer),
});
