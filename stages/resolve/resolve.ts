// resolve: scheduled → resolved (keyed by server address), unfetched, or fetched when there is nothing
// to fetch. Host names decide ownership, but thousands of names can share one server: re-keying each
// leased request by the address it will connect to puts every request to one server in one fetch task,
// which then holds at most --max-in-flight-per-ip of them in flight, across the whole crawl (every task
// embedded, every worker on Kafka). The address travels with the request, and the fetch connects to
// it and no other, so a DNS answer that changes in between cannot route around the limit.
//
// A lease (politeness/leases.ts) is split into one `resolved` record per URL, in order, so that each
// fetch finishes and commits on its own: a kill -9 redoes only what was in flight, never a whole lease.
// A lease queued behind another of its host comes pinned to that one's address and is not looked up
// again: both must reach the same fetch task, which serializes them.
import { defineProcessor, type Processor, type ProcessorContext, type RecordOf, type TopicValues } from '../../engine/api.js';
import { fetched, fetchReports, resolved, scheduled, unfetched } from '../../contract/topics.js';
import { forwardOutcome } from '../../contract/fetch-report.js';
import type { HttpFetcher } from '../../fetching/http-fetcher.js';
import type { CrawlObserver } from '../../contract/services.js';
import { PLAIN_RESULT, type FetchRequest, type FetchResult } from '../../schemas/records.js';
import { leaseRequests } from '../../politeness/leases.js';
import { retryableError } from '../../politeness/host-politeness.js';

const inputs = [scheduled] as const;
const outputs = [resolved, fetched, fetchReports, unfetched] as const;
type In = TopicValues<typeof inputs>;
type Out = TopicValues<typeof outputs>;

class Resolve implements Processor<In, Out> {
  constructor(private readonly fetcher: HttpFetcher, private readonly observer: CrawlObserver) {}

  async process(record: RecordOf<In>, ctx: ProcessorContext<Out>): Promise<void> {
    const requests = leaseRequests(record.value);
    const [first] = requests;
    let address = first.address;
    let key = address;
    if (!address) {
      let hostname: string;
      try {
        hostname = new URL(first.url).hostname;
      } catch {
        return this.failed(ctx, requests, 'protocol', `invalid URL "${first.url.slice(0, 200)}"`);
      }
      const found = await this.fetcher.resolveAddress(hostname, first.url);
      if ('kind' in found) return this.failed(ctx, requests, found.kind, found.message);
      address = found.address;
      // Behind a proxy whose target local DNS cannot resolve, the address is unknown: keyed by name.
      key = found.key ?? found.address;
    }
    for (const request of requests) ctx.forward('resolved', key, { ...request, address });
  }

  /**
   * No request can be sent: the outcome goes straight to `fetched`, and its report to the schedule.
   * A failure worth retrying (DNS) ends the lease there, as a failed fetch would: the lease's other URLs
   * are given back. One that is not (a refused address) is every URL's outcome.
   */
  private failed(ctx: ProcessorContext<Out>, requests: FetchRequest[], kind: string, message: string): void {
    const cut = retryableError(kind);
    const now = ctx.now();
    requests.forEach((request, i) => {
      if (cut && i > 0) {
        ctx.forward('unfetched', request.host, {
          fetch_id: request.fetch_id, lease_id: request.lease_id, lease_epoch: request.lease_epoch, url: request.url, host: request.host,
          reason: 'lease-cut', detail: `${requests[0].fetch_id}: ${kind}`, returned_at: now,
        });
        return;
      }
      ctx.metrics.count(`errors.${kind}`);
      // A fetch attempt that ended before a request could leave (DNS, network policy): counted as one.
      this.observer.fetchDone({ kind: request.kind, status: 0, errorKind: kind, truncated: false, seconds: 0, wireBytes: 0, host: request.host, error: `${kind}: ${message}` });
      forwardOutcome(ctx, failure(request, `${kind}: ${message}`, now));
    });
  }
}

function failure(request: FetchRequest, error: string, now: number): FetchResult {
  return {
    ...PLAIN_RESULT,
    fetch_id: request.fetch_id, url: request.url, host: request.host, kind: request.kind, depth: request.depth,
    attempt: request.attempt, via: request.via, source_url: request.source_url, redirect_hops: request.redirect_hops,
    status: 0, error, final_url: request.url, redirect_chain: [], headers: {}, started_at: now,
    elapsed_ms: 0, ttfb_ms: 0, bytes: 0, wire_bytes: 0, content_type: '', charset: '', truncated: false, retry_after_ms: 0,
    conditional: false, remote_address: '', body_encoding: 'identity', body: Buffer.alloc(0), changed: false,
    priority: request.priority, sitemap_depth: request.sitemap_depth, lease_id: request.lease_id, lease_epoch: request.lease_epoch,
  };
}

export const resolveProcessor = defineProcessor({
  name: 'resolve',
  description: 'Resolves each lease to the server address it will connect to (DNS cache, network policy; a lease queued behind another keeps its pinned address) and splits it into one request per URL, keyed by that address.',
  inputs,
  outputs,
  stores: [],
  // Lookups wait on DNS: many at once, one host's leases in order.
  concurrency: { maxInFlight: 256, perKeyOrder: true },
  delivery: 'Stateless: after a crash a lease may be resolved again; the fetch stage sends each request once per release, and gives back those released before it started.',
  create: (s: { fetcher: HttpFetcher; observer: CrawlObserver }) => new Resolve(s.fetcher, s.observer),
});
