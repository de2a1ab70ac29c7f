// A user's processor (--processor-module) bounded in time. Its `init` and each `process` must finish
// within --module-timeout: an init that never resolves would hold the crawl's start with nothing
// said, a process that never resolves would hold its record (and, at a stop, the stop) forever. An
// init past its bound fails the start, naming the module; a process past its bound fails its record,
// which goes to dead-letters with that reason (and the crawl exits 3). Time a record spends waiting
// for the module's own rows to reach ClickHouse (`rows`) is the crawl's sink's, not the module's: it
// is not held against it (the sink says what ClickHouse is doing).
import type { AnyProcessorDefinition, Processor } from '../engine/api.js';
import type { RowSink, RowSinks } from '../clickhouse/row-sinks.js';
import type { CrawlServices } from '../contract/services.js';

export const DEFAULT_MODULE_TIMEOUT_MS = 30_000;

type AnyProcessor = Processor<any, any>;

export class ModuleTimeoutError extends Error {
  override name = 'ModuleTimeoutError';
}

export function boundedDefinition(def: AnyProcessorDefinition<CrawlServices>, file: string, timeoutMs: number): AnyProcessorDefinition<CrawlServices> {
  const who = `processor module ${def.name} (${file})`;
  const bound = `${timeoutMs >= 1000 ? `${timeoutMs / 1000} s` : `${timeoutMs} ms`} (--module-timeout)`;
  return {
    ...def,
    create: (services: CrawlServices) => {
      const sinks: RowSink[] = [];
      const rows: RowSinks = { open: (table, task) => {
        const sink = services.rows.open(table, task);
        sinks.push(sink);
        return sink;
      } };
      const waitingOnRows = () => sinks.some((s) => s.pending > 0);
      const inner = def.create({ ...services, rows }) as AnyProcessor;
      const outer: AnyProcessor = {
        init: async (ctx) => {
          try {
            await within(Promise.resolve(inner.init?.(ctx)), timeoutMs, () => false, () => `${who}: init did not finish within ${bound}`);
          } catch (err) {
            if (err instanceof ModuleTimeoutError) throw err;
            throw new Error(`${who}: init failed: ${(err as Error).message}`, { cause: err });
          }
        },
        process: (record, ctx) => {
          const pending = inner.process(record, ctx);
          if (!pending || typeof (pending as Promise<void>).then !== 'function') return pending;
          return within(pending, timeoutMs, waitingOnRows, () => `${def.name}: process did not finish within ${bound}`);
        },
      };
      // Only what the module has: the engine treats a present method as work to do.
      if (inner.punctuate) outer.punctuate = (now, ctx) => inner.punctuate!(now, ctx);
      if (inner.hasPendingWork) outer.hasPendingWork = () => inner.hasPendingWork!();
      if (inner.recordFailed) {
        outer.recordFailed = (record, ctx) => {
          const pending = inner.recordFailed!(record, ctx);
          if (!pending || typeof (pending as Promise<void>).then !== 'function') return pending;
          return within(pending, timeoutMs, waitingOnRows, () => `${def.name}: recordFailed did not finish within ${bound}`);
        };
      }
      if (inner.abandon) outer.abandon = () => inner.abandon!();
      if (inner.close) outer.close = () => inner.close!();
      return outer;
    },
  };
}

/** `work`, or a ModuleTimeoutError once `ms` passed while `excused()` was false at each check. */
function within<T>(work: Promise<T>, ms: number, excused: () => boolean, message: () => string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let timer: NodeJS.Timeout;
    const arm = () => {
      timer = setTimeout(() => (excused() ? arm() : reject(new ModuleTimeoutError(message()))), ms);
    };
    arm();
    work.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err as Error);
      },
    );
  });
}
