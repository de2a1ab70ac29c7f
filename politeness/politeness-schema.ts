// The Avro layout of a host's politeness record (its slot and its robots.txt state), which the
// schedule processor keeps in its `hosts` store. It lives here, beside the rules that read it.
const record = (name: string, fields: [string, string][]) => ({ type: 'record', name, fields: fields.map(([n, type]) => ({ name: n, type })) });

export const hostSlotSchema = record('HostSlot', [
  ['delayMs', 'long'], ['nextFetchAt', 'long'], ['inFlight', 'string'], ['inFlightSince', 'long'], ['failures', 'int'], ['releaseSeq', 'long'],
]);

export const robotsStateSchema = record('RobotsState', [
  ['status', 'string'], ['url', 'string'], ['hops', 'int'], ['attempts', 'int'], ['fetchedAt', 'long'], ['expiresAt', 'long'],
  ['retryAt', 'long'], ['gaveUpUntil', 'long'], ['crawlDelayMs', 'long'],
]);
