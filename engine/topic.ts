// A topic's declaration: its name, Avro schema, key and retention, and the TypeScript type of its values.
import type avro from 'avsc';

/** A topic's declaration. `V` is the TypeScript type of its values; the Avro schema must match it. */
export interface TopicSpec<N extends string = string, V = unknown> {
  readonly name: N;
  /** Avro schema of the values, registered as `<topic>-value` (Confluent wire format). */
  readonly schema: avro.Schema;
  /** What the record key is, in words (records of one key go to one partition, in order). */
  readonly key: string;
  readonly description: string;
  /** 'until-consumed': gone once every reader is past it. Otherwise kept this long, for replay. */
  readonly retention: 'until-consumed' | { ms: number };
  /** Internal topics (repartitions, private replay topics) are not meant for users to consume. */
  readonly internal?: boolean;
  /** Largest encoded record (max.message.bytes on Kafka). */
  readonly maxRecordBytes: number;
  /** Never set: carries V for the type checker. */
  readonly __value?: V;
}

export type AnyTopic = TopicSpec<string, any>;

/** `defineTopic<Value>()({ name, ... })`: the value type is given, the name inferred. */
export function defineTopic<V>(): <N extends string>(spec: Omit<TopicSpec<N, V>, '__value'>) => TopicSpec<N, V> {
  return (spec) => spec;
}

/** Topic name → value type, from a list of topic declarations. */
export type TopicValues<Ts extends readonly AnyTopic[]> = {
  [T in Ts[number] as T['name']]: T extends TopicSpec<string, infer V> ? V : never;
};

