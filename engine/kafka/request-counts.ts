// How many requests this process sent to the brokers, by API (Produce, Fetch, EndTxn, …): what a
// page costs the broker is mostly how many requests, transactions and markers it asks for, and the
// broker's CPU cannot tell which client asked. Counted from kafkajs's instrumentation events on every
// client made through the cluster's Kafka instance; a worker prints the totals when it stops.
import type { Kafka } from 'kafkajs';

export class RequestCounts {
  private readonly byApi = new Map<string, number>();

  /** Makes every producer, consumer and admin created from `kafka` from now on count its requests. */
  attach(kafka: Kafka): void {
    const count = (e: { payload: { apiName: string } }) => this.byApi.set(e.payload.apiName, (this.byApi.get(e.payload.apiName) ?? 0) + 1);
    const k = kafka as unknown as Record<'producer' | 'consumer' | 'admin', (o?: unknown) => { on(event: string, fn: typeof count): unknown; events: { REQUEST: string } }>;
    for (const kind of ['producer', 'consumer', 'admin'] as const) {
      const make = k[kind].bind(kafka);
      k[kind] = (o?: unknown) => {
        const client = make(o);
        client.on(client.events.REQUEST, count);
        return client;
      };
    }
  }

  totals(): Record<string, number> {
    return Object.fromEntries([...this.byApi].sort((a, b) => b[1] - a[1]));
  }
}
