// The context a task hands its processor: forwarding encodes at once into the task's outputs (so a
// commit holds bytes, and a record that cannot be encoded fails its own processing, not the commit).
import type { Logger, ProcessorContext } from '../api.js';
import type { TopicCodecs } from '../avro/topic-codecs.js';
import type { KeyValueStore, StoreSpec } from '../stores/key-value-store.js';
import type { ProcessorNode } from '../topology.js';
import type { TaskMetrics } from './task-metrics.js';
import type { OutputRecord } from './task-records.js';

export interface TaskContextParts {
  node: Pick<ProcessorNode<unknown>, 'name' | 'storedName' | 'physical' | 'outputs' | 'discarded'>;
  partition: number;
  metrics: TaskMetrics;
  codecs: TopicCodecs;
  clock: () => number;
  logId: string;
  logger: Logger;
  store<K, V>(spec: StoreSpec<K, V>): KeyValueStore<K, V>;
}

export function taskContext(parts: TaskContextParts, outputs: () => OutputRecord[]): ProcessorContext<Record<string, unknown>> {
  const { node, metrics, codecs, clock } = parts;
  // Declared output → physical topic, or null when the placement discards it: one lookup per forward.
  const outputTopics = new Map<string, string | null>();
  for (const [declared, physical] of node.physical) if (node.outputs.includes(physical)) outputTopics.set(declared, physical);
  for (const declared of node.discarded) outputTopics.set(declared, null);
  return {
    processorName: node.name,
    storedName: node.storedName,
    partition: parts.partition,
    logId: parts.logId,
    metrics,
    logger: parts.logger,
    now: clock,
    forward(declared, key, value) {
      const topic = outputTopics.get(declared);
      if (topic === undefined) throw new Error(`processor ${node.name} forwarded to ${declared}, which is not among its declared outputs`);
      if (topic === null) return metrics.count(`discarded.${declared}`);
      outputs().push({ topic, key, value: codecs.encode(topic, value), timestamp: clock() });
    },
    store: (spec) => parts.store(spec),
  };
}
