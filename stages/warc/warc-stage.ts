// warc: fetched → WARC files. Every fetch that got an HTTP response becomes a request record and a
// response record (a revisit for a 304), robots.txt and sitemaps included, in .warc.gz files under
// --warc-dir, written as the crawl goes. Added to the topology only when --warc-dir is given; `warc
// export` runs it as a replay of the retained `fetched` topic.
//
// Concurrent like the ClickHouse sink: `process` queues the capture and returns a promise that settles
// once it is written and fsynced, so the runtime commits input positions only below durable captures.
// One writer per task (source partition); its files name each record's source offset, so after a
// crash the writer cuts a partial capture and skips the offsets its files already hold.
import { hostname } from 'node:os';
import { defineProcessor, type Processor, type ProcessorContext, type RecordOf, type TopicValues } from '../../engine/api.js';
import type { CrawlConfig } from '../../contract/config.js';
import { CRAWLSTREAM_VERSION } from '../../contract/config.js';
import { fetched } from '../../contract/topics.js';
import { CaptureError } from '../../warc/capture.js';
import { AppenderStoppedError, DurableAppender } from '../../warc/durable-appender.js';
import { captureOfFetch } from '../../warc/fetch-capture.js';
import { WarcWriter } from '../../warc/warc-writer.js';
import type { WarcOutput } from '../../warc/warc-output.js';
import type { Troubles } from '../../contract/troubles.js';

export interface WarcServices {
  warc?: WarcOutput;
  config: CrawlConfig;
  troubles?: Troubles;
}

const inputs = [fetched] as const;
type In = TopicValues<typeof inputs>;
type Out = TopicValues<readonly []>;

/** Fetches without a response are counted; the first and then every LOG_EVERY-th is also logged. */
const LOG_EVERY = 100;

class WarcArchive implements Processor<In, Out> {
  private appender: DurableAppender | undefined;
  private noResponse = 0;

  constructor(private readonly out: WarcOutput, private readonly config: CrawlConfig, private readonly troubles?: Troubles) {}

  async init(ctx: ProcessorContext<Out>): Promise<void> {
    const role = this.out.role ? `${this.out.role}-` : '';
    // The log identity keeps a new crawl (a new data directory, recreated topics) from taking an
    // earlier crawl's files in the same directory for its own and skipping its offsets.
    const writerId = `${ctx.logId.replace(/[^A-Za-z0-9]/g, '').slice(0, 12)}-${role}fetched-${ctx.partition}`;
    this.appender = await DurableAppender.open({
      logger: ctx.logger,
      trouble: this.troubles?.of('warc'),
      open: () => WarcWriter.open({
        dir: this.out.dir,
        writerId,
        source: { topic: fetched.name, partition: ctx.partition },
        maxFileBytes: this.out.maxFileBytes,
        software: `crawlstream/${CRAWLSTREAM_VERSION}`,
        operator: this.out.operator ?? this.config.userAgent,
        info: {
          hostname: hostname(),
          'http-header-user-agent': this.config.userAgent,
          robots: 'obey',
          'crawlstream-log': ctx.logId,
        },
        logger: ctx.logger,
      }),
    });
  }

  process(record: RecordOf<In>, ctx: ProcessorContext<Out>): Promise<void> | void {
    if (!this.appender) throw new Error('the warc processor got a record before init');
    const r = record.value;
    if (r.status === 0) {
      // Nothing came back (DNS, connect, refused, a timeout before the headers): nothing to archive.
      ctx.metrics.count('no-response');
      if (this.noResponse++ % LOG_EVERY === 0) {
        ctx.logger.info(`warc: ${this.noResponse} fetch(es) without a response not archived so far (counted as warc.no-response), e.g. ${r.url.slice(0, 200)}: ${r.error.slice(0, 200)}`);
      }
      return;
    }
    if (r.status === 304 && !r.previous_captured_at) ctx.metrics.count('not-modified-without-earlier-capture');
    return this.appender.append(async () => {
      const v = await captureOfFetch(r);
      if (v.kind !== 'capture') throw new CaptureError('no response to archive');
      return v.capture;
    }, record.offset).then(
      (w) => ctx.metrics.count(!w.written ? 'already-written' : w.type === 'revisit' ? 'revisits' : 'responses'),
      (err: Error) => {
        if (err instanceof AppenderStoppedError) throw err; // the task left: the record stays unfinished
        if (!(err instanceof CaptureError)) throw err;
        ctx.metrics.count('unwritable');
        ctx.logger.warn(`warc: ${record.topic}/${record.partition}@${record.offset} (${r.url.slice(0, 200)}) not archived: ${err.message}`);
      },
    );
  }

  /** The task moved away: write nothing more; the records not yet durable are its next owner's. */
  abandon(): void {
    this.appender?.abort();
  }

  async close(): Promise<void> {
    await this.appender?.close();
  }
}

export const warcProcessor = defineProcessor({
  name: 'warc',
  description:
    'Writes every fetch that got an HTTP response to WARC/1.1 files (--warc-dir): request and response records, a revisit for a 304, ' +
    'robots.txt and sitemaps included, bodies as decoded, WARC-Truncated when cut short.',
  inputs,
  kind: 'sink', outputs: [],
  stores: [],
  // Waiting records hold their compressed form only (a capture is built when written); the bound
  // keeps a slow disk from queueing a partition's whole backlog.
  concurrency: { maxInFlight: 2048, perKeyOrder: false },
  delivery:
    'Exactly once per directory: a capture counts as done only once written and fsynced, each record names its source offset ' +
    '(WARC-Crawlstream-Source), and after a crash the writer cuts a partial capture and skips what its files already hold.',
  create: (s: WarcServices) => {
    if (!s.warc) throw new Error('the warc processor needs a WARC directory (--warc-dir)');
    return new WarcArchive(s.warc, s.config, s.troubles);
  },
});
