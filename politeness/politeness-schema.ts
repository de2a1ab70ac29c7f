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

/** The host's lease book (leases.ts); appended to the host's record after the fields above. */
export const leaseBookSchema = {
  type: 'record', name: 'LeaseBook',
  fields: [
    { name: 'open', type: { type: 'array', items: { type: 'record', name: 'Lease', fields: [
      { name: 'id', type: 'string' }, { name: 'epoch', type: 'int' }, { name: 'releasedAt', type: 'long' }, { name: 'queued', type: 'boolean' },
      { name: 'kind', type: 'string' }, { name: 'owed', type: { type: 'array', items: { type: 'record', name: 'UrlRef', fields: [{ name: 'hi', type: 'long' }, { name: 'lo', type: 'long' }] } } },
      { name: 'count', type: 'int' }, { name: 'size', type: 'int' },
    ] } } },
    { name: 'address', type: 'string' }, { name: 'epoch', type: 'int' }, { name: 'progressAt', type: 'long' },
  ],
};

export const EMPTY_LEASE_BOOK = { open: [], address: '', epoch: 0, progressAt: 0 };
