// crawlstream's command line: one subcommand per file under cli/.
import { UsageError } from './options.js';

const COMMANDS: Record<string, () => Promise<{ run(argv: string[]): Promise<number> }>> = {
  crawl: () => import('./crawl-command.js'),
  query: () => import('./query-command.js'),
  normalize: () => import('./normalize-command.js'),
  robots: () => import('./robots-command.js'),
  topics: () => import('./topics-command.js'),
  worker: () => import('./worker-command.js'),
  seed: () => import('./seed-command.js'),
  status: () => import('./status-command.js'),
  clickhouse: () => import('./clickhouse-command.js'),
  report: () => import('./report-command.js'),
  replay: () => import('./replay-command.js'),
  scale: () => import('./scale-command.js'),
  describe: () => import('./describe-command.js'),
  warc: () => import('./warc-command.js'),
};

const USAGE = `usage: crawlstream <command> [options]

  crawl [URL...] [--seeds-file FILE] [--data-dir DIR] [--user-agent UA] [--max-depth N]
        [--max-pages N] [--max-pages-per-host N] [--default-delay-ms N] [--fetch-timeout-ms N]
        [--allow-network CIDR]... [--partitions N] [--clickhouse-url URL]
        [--parser-module FILE] [--processor-module FILE]... [--module-timeout DUR] [--reset-state] [--run-for DUR] [--stop-grace DUR]
        [--recrawl [--recrawl-min-interval DUR] [--recrawl-max-interval DUR]] [--no-sitemaps]
        [--scope any|domain|host] [--include GLOB]... [--exclude GLOB]... [--max-crawl-delay DUR]
        [--max-in-flight-per-ip N] [--resolve HOST=IP]... [--render never|auto|always]
        [--render-concurrency N] [--chromium PATH]
        [--warc-dir DIR [--warc-operator TEXT]] [--metrics-port N [--metrics-host H] [--metrics-linger DUR]]
  query "SQL" [--data-dir DIR | --clickhouse-url URL] [--format json|table]
  replay --from fetched [--since TIME | --from-offset N] [--processors parse,clickhouse-sink] [--parser-module FILE]
         [--data-dir DIR | --brokers B [--topic-prefix P] --schema-registry URL] [--clickhouse-url URL]
         [--metrics-port N ...]
  warc export --out DIR [--since TIME | --from-offset N] [--data-dir DIR | --brokers B [--topic-prefix P]
         --schema-registry URL] [--warc-operator TEXT]   WARC files from the retained fetched topic
  scale --partitions N [--data-dir DIR | --brokers B [--topic-prefix P]]
  report [--data-dir DIR | --clickhouse-url URL] --out report.html
  clickhouse migrate [--data-dir DIR | --clickhouse-url URL] [--processor-module FILE]...
  describe [--processor-module FILE]...            the topology: topics, processors, stores, guarantees
  normalize URL...
  robots FILE --user-agent UA URL...

Kafka mode (services: docker compose up -d, or scripts/dev-services.sh up):
  topics create --brokers HOST:PORT [--topic-prefix P] [--partitions N]
  worker --brokers B [--topic-prefix P] --schema-registry URL --clickhouse-url URL [--threads N (1)]
         [--processors normalize,dedup,schedule,resolve,fetch,parse,near-dup-bands,near-dup,clickhouse-sink,warc]
         (a processor's stored name selects it too: simhash-bands, sink; see README, stored names)
         [--allow-network CIDR]... [--data-dir DIR] [--parser-module FILE] [--processor-module FILE]...
         [--warc-dir DIR] [--metrics-port N (9464, 9465, … one per worker) [--metrics-host H]]
         [--commit-interval DUR (100ms)] [--handover-grace DUR (5s)] [--stop-grace DUR (30s)]
  seed --brokers B [--topic-prefix P] --schema-registry URL [crawl-level options of crawl] URL...
       (crawl-level: user agent, depth, budgets, delays, --recrawl…, --scope…, --resolve, --render, --max-in-flight-per-ip)
  status --brokers B [--topic-prefix P] [--wait-idle] [--timeout S]
`;

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(USAGE);
    return name ? 0 : 2;
  }
  const load = COMMANDS[name];
  if (!load) {
    process.stderr.write(`crawlstream: unknown command "${name}"\n\n${USAGE}`);
    return 2;
  }
  try {
    return await (await load()).run(rest);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`crawlstream ${name}: ${err.message}\n`);
      return 2;
    }
    process.stderr.write(`crawlstream ${name}: ${(err as Error).message}\n`);
    if (process.env.CRAWLSTREAM_DEBUG) process.stderr.write(`${(err as Error).stack}\n`);
    return 1;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    // Exit once output is flushed: a Kafka client left reconnecting by a broker failure must not
    // keep a finished command alive.
    process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
  },
  (err) => {
    process.stderr.write(`crawlstream: ${(err as Error).stack ?? err}\n`);
    process.exitCode = 1;
  },
);
