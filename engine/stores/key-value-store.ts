// The store interface processors program against. Reads are synchronous (as in Kafka Streams),
// writes are buffered by the runtime and committed atomically with the task's output and input position.

export interface KeyCodec<K> {
  /**
   * The routing key (a host, a band) that decides which task owns the entry. The physical key is
   * prefixed with the routing key's virtual bucket, so a task's entries can be found, restored and
   * moved by bucket when partitions are added.
   */
  routingKey(key: K): string;
  encode(key: K): Buffer;
  decode(bytes: Buffer): K;
}

export interface ValueCodec<V> {
  encode(value: V): Buffer;
  decode(bytes: Buffer): V;
}

export interface KeyValueStore<K, V> {
  readonly name: string;
  get(key: K): V | undefined;
  put(key: K, value: V): void;
  delete(key: K): void;
  /** Entries of one routing key whose encoded key starts with `prefix`, in key order. */
  scan(routingKey: string, prefix: Buffer, limit?: number): AsyncIterable<[K, V]>;
  /** Every entry owned by this task, in physical key order. */
  entries(): AsyncIterable<[K, V]>;
}

export interface StoreSpec<K = unknown, V = unknown> {
  /** What the code and the docs call the store. */
  name: string;
  /**
   * The name its state is kept under (LevelDB key prefix, Kafka changelog topic), when it differs
   * from `name`: a store renamed after crawls began keeps its old name here, so existing data
   * directories and clusters are read as before. Change it only together with a migration.
   */
  storedAs?: string;
  keys: KeyCodec<K>;
  values: ValueCodec<V>;
  /** What the store holds and why; shown by `crawlstream status` and in the docs. */
  description: string;
}

export function defineStore<K, V>(spec: StoreSpec<K, V>): StoreSpec<K, V> {
  return spec;
}

/**
 * The name a store or processor is persisted under: its pinned `storedAs`, else its name. Everything
 * that outlives the process (state, positions, topics, groups, task ids, metrics labels) uses this.
 */
export function storedName(declared: { readonly name: string; readonly storedAs?: string }): string {
  return declared.storedAs ?? declared.name;
}
