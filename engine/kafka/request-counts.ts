// How many requests this process sent to the brokers, by API (Produce, Fetch, EndTxn, …): what a
// page costs the broker is mostly how many requests, transactions and markers it asks for, and the
// broker's CPU cannot tell which client asked. Counted from kafkajs's instrumentation events on every
// client made through the cluster's Kafka instance, and from the transactional producer's own client
// (engine/kafka/txn-producer.ts); a worker prints the totals when it stops.
import type { Kafka } from 'kafkajs';

export class RequestCounts {
  private readonly byApi = new Map<string, number>();

  /** Makes every producer, consumer and admin created from `kafka` from now on count its requests. */
  attach(kafka: Kafka): void {
    const count = (e: { payload: { apiName: string } }) => this.count(e.payload.apiName);
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

  /** One request of `apiName` (the transactional producer's client tells them here). */
  count(apiName: string): void {
    this.byApi.set(apiName, (this.byApi.get(apiName) ?? 0) + 1);
  }

  totals(): Record<string, number> {
    return Object.fromEntries([...this.byApi].sort((a, b) => b[1] - a[1]));
  }
}
