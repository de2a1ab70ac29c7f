// The crawl's processors under the engine's TopologyTestDriver, with test defaults for the services a
// processor test does not care about (no HTTP client, no ClickHouse unless given).
import type { Logger } from '../../engine/api.js';
import { TopologyTestDriver } from '../../engine/test-driver/topology-test-driver.js';
import type { HttpFetcher } from '../../fetching/http-fetcher.js';
import { defaultCrawlConfig, type CrawlConfig } from '../../contract/config.js';
import { NO_OBSERVER, type CrawlServices } from '../../contract/services.js';
import { crawlTopology, type CrawlTopology } from '../topology.js';

type Topics = NonNullable<CrawlTopology['__topics']>;

export interface CrawlDriverOptions {
  processors: string[];
  config?: Partial<CrawlConfig>;
  services?: Partial<Omit<CrawlServices, 'config'>>;
  startTime?: number;
  logger?: Logger;
}

export type CrawlTestDriver = TopologyTestDriver<CrawlServices, Topics>;

const unused = (what: string) => (): never => {
  throw new Error(`this test gave no ${what}`);
};

/** Crawl services for tests: what is not given fails loudly when a processor reaches for it. */
export function testServices(config: Partial<CrawlConfig> = {}, services: Partial<Omit<CrawlServices, 'config'>> = {}): CrawlServices {
  return {
    config: defaultCrawlConfig(config),
    fetcher: new Proxy({}, { get: unused('HTTP fetcher') }) as HttpFetcher,
    clickhouse: unused('ClickHouse'),
    sinkName: 'live',
    control: { paused: false },
    rows: { open: unused('row sinks') },
    observer: NO_OBSERVER,
    ...services,
  };
}

export function crawlTestDriver(o: CrawlDriverOptions): Promise<CrawlTestDriver> {
  const services = testServices(o.config, o.services);
  return TopologyTestDriver.create({ topology: crawlTopology(), processors: o.processors, services, startTime: o.startTime, logger: o.logger });
}
