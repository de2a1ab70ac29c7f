// A fetch outcome as the schedule reads it (topic fetch-reports). The schedule ends leases and paces
// hosts from outcomes; reading them from `fetched` made it read every page's body too, ~12 KB a page
// (its read-ahead held hundreds of bodies, and on Kafka the broker served each body once more).
// The report is the fetched record without what only parse, the sink and WARC need.
import type { ProcessorContext } from '../engine/api.js';
import type { FetchResult } from '../schemas/records.js';

const NO_BYTES = Buffer.alloc(0);

/** The fetched record the schedule is sent: a robots.txt keeps its body (the schedule reads its rules). */
function fetchReport(r: FetchResult): FetchResult {
  return {
    ...r,
    body: r.kind === 'robots' ? r.body : NO_BYTES,
    body_encoding: r.kind === 'robots' ? r.body_encoding : 'identity',
    headers: {}, redirect_chain: [], request_headers: [], response_headers: [], subrequests: [], rendered_body: NO_BYTES,
    rendered_encoding: 'identity',
  };
}

/** Every fetch outcome, wherever it is decided (fetch, or resolve when no request could leave): the record and its report. */
export function forwardOutcome(ctx: ProcessorContext<{ fetched: FetchResult; 'fetch-reports': FetchResult }>, result: FetchResult): void {
  ctx.forward('fetched', result.host, result);
  ctx.forward('fetch-reports', result.host, fetchReport(result));
}
