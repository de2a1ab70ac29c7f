// What the commands share about a crawl's data directory and how a crawl ends, in a module of its
// own: `query`, `report` and the others import this, not crawl-command.ts, so that they start
// without loading the crawl (its stages, the renderer and their dependencies).
export const DEFAULT_DATA_DIR = 'crawl-data';
/** The crawl ran to its end but its results are incomplete: records lost to log damage before they were processed, records set aside as dead letters, WARC captures not written. */
export const LOST_RECORDS_EXIT = 3;
/** Not one URL of the crawl (robots.txt aside) got an HTTP response of any status, over the data directory's history. */
export const NOTHING_ANSWERED_EXIT = 4;
