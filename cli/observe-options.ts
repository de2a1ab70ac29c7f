// --warc-dir and --metrics-port: what a crawl, a worker or a replay writes and serves beside its
// work, checked before anything starts.
import { resolve } from 'node:path';
import type { WarcOutput } from '../warc/warc-output.js';
import type { MetricsOptions, ServedTelemetry } from '../crawl/telemetry.js';
import { durationOption, intOption, LIMITS, UsageError, type OptionSpec } from './options.js';

export const WARC_FLAGS = {
  'warc-dir': { type: 'string' },
  'warc-operator': { type: 'string' },
} as const satisfies OptionSpec;

export const METRICS_FLAGS = {
  'metrics-port': { type: 'string' },
  'metrics-host': { type: 'string' },
  'metrics-linger': { type: 'string' },
} as const satisfies OptionSpec;

/**
 * --warc-dir DIR [--warc-operator TEXT]: the operator (warcinfo's contact) defaults to the User-Agent,
 * which names the crawl's contact URL.
 */
export function warcOutputFrom(values: Record<string, unknown>, role = ''): WarcOutput | undefined {
  const dir = values['warc-dir'] as string | undefined;
  const operator = values['warc-operator'] as string | undefined;
  if (dir === undefined) {
    if (operator !== undefined) throw new UsageError('--warc-operator needs --warc-dir');
    return undefined;
  }
  if (!dir.trim()) throw new UsageError('--warc-dir must name a directory');
  if (operator !== undefined && (!operator.trim() || /[\r\n]/.test(operator))) throw new UsageError('--warc-operator must be one non-empty line');
  return { dir: resolve(dir), role, operator };
}

/** --metrics-port N [--metrics-host H] [--metrics-linger DUR]; undefined without a port. */
export function metricsOptionsFrom(values: Record<string, unknown>): MetricsOptions | undefined {
  const port = intOption(values, 'metrics-port', LIMITS.metricsPort);
  const lingerMs = durationOption(values, 'metrics-linger', LIMITS.metricsLingerMs);
  const host = values['metrics-host'] as string | undefined;
  if (port === undefined) {
    if (host !== undefined || lingerMs !== undefined) throw new UsageError('--metrics-host and --metrics-linger need --metrics-port');
    return undefined;
  }
  if (host !== undefined && !/^[A-Za-z0-9.:_-]{1,255}$/.test(host)) throw new UsageError(`--metrics-host must be a host name or an address, got "${host.slice(0, 60)}"`);
  return { port, host: host ?? '127.0.0.1', lingerMs };
}

/** --metrics-linger: the final values stay up for a last scrape; Ctrl-C or SIGTERM ends it early. */
export async function lingerThenClose(served: ServedTelemetry): Promise<void> {
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    await served.close(stop.signal);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

