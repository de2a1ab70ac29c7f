// A topology described as data, as Kafka Streams' TopologyDescription: what `crawlstream describe`
// prints and the stage table of docs/architecture.md are both rendered from this one object, so
// neither can say something the declarations do not.
import type { ProcessorKind } from './api.js';
import type { AnyTopic } from './topic.js';
import type { Topology } from './topology.js';
import { storedName } from './stores/key-value-store.js';

export interface TopicDescription {
  readonly name: string;
  readonly internal: boolean;
  /** The Avro record name of the values. */
  readonly valueSchema: string;
  /** What the key is, in words. */
  readonly key: string;
  /** 'until consumed', or how long records are kept. */
  readonly retention: string;
  readonly maxRecordBytes: number;
  readonly description: string;
}

export interface StoreDescription {
  readonly name: string;
  /** The name its state is kept under, when pinned to another than `name`. */
  readonly storedAs?: string;
  readonly description: string;
}

export interface ProcessorDescription {
  readonly name: string;
  /** The name its identity is persisted under, when pinned to another than `name`. */
  readonly storedAs?: string;
  readonly kind: ProcessorKind;
  readonly description: string;
  /** Physical topics read and written (dead letters included in the outputs). */
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  readonly stores: readonly StoreDescription[];
  /** Sequential, or concurrent with this many records in flight. */
  readonly concurrency?: { readonly maxInFlight: number; readonly perKeyOrder: boolean };
  readonly punctuateEveryMs?: number;
  /** Declared outputs dropped and counted, not written (a replay's feedback). */
  readonly discarded: readonly string[];
  readonly delivery: string;
}

export interface TopologyDescription {
  readonly topics: readonly TopicDescription[];
  readonly processors: readonly ProcessorDescription[];
}

const pinned = (name: string, stored: string) => (stored === name ? {} : { storedAs: stored });
const retention = (t: AnyTopic) => (t.retention === 'until-consumed' ? 'until consumed' : `kept ${Math.round(t.retention.ms / 3_600_000)} h`);
const schemaName = (t: AnyTopic) => (typeof t.schema === 'object' && t.schema && 'name' in t.schema ? String(t.schema.name) : 'schema');

/** The topology's declarations as data. */
export function topologyDescription(topology: Topology<any, any>): TopologyDescription {
  return {
    topics: [...topology.topics.values()].map((t) => ({
      name: t.name, internal: !!t.internal, valueSchema: schemaName(t), key: t.key, retention: retention(t),
      maxRecordBytes: t.maxRecordBytes, description: t.description,
    })),
    processors: topology.processors.map((p) => {
      const d = p.definition;
      return {
        name: p.name, ...pinned(p.name, p.storedName), kind: d.kind ?? 'transform', description: d.description, inputs: [...p.inputs], outputs: [...p.outputs],
        stores: d.stores.map((s) => ({ name: s.name, ...pinned(s.name, storedName(s)), description: s.description })),
        concurrency: d.concurrency, punctuateEveryMs: d.punctuateEveryMs, discarded: [...p.discarded], delivery: d.delivery,
      };
    }),
  };
}

const modeOf = (p: ProcessorDescription) => (p.concurrency
  ? `concurrent (${p.concurrency.maxInFlight} in flight${p.concurrency.perKeyOrder ? ', in order per key' : ''})`
  : 'sequential');
const storedAs = (d: { storedAs?: string }) => (d.storedAs ? ` (stored as ${d.storedAs})` : '');
const kindOf = (p: ProcessorDescription) => (p.kind === 'sink' ? 'a sink, ' : '');

/** The description in words (`crawlstream describe`). */
export function renderDescription(d: TopologyDescription): string {
  const lines = ['Topics:'];
  for (const t of d.topics) {
    lines.push(`  ${t.name}${t.internal ? ' (internal)' : ''}`);
    lines.push(`    value ${t.valueSchema} (Avro), key: ${t.key}, ${t.retention}, records up to ${Math.round(t.maxRecordBytes / 1024)} KiB`);
    lines.push(`    ${t.description}`);
  }
  lines.push('', 'Processors:');
  for (const p of d.processors) {
    lines.push(`  ${p.name}${storedAs(p)}: ${p.inputs.join(', ')} → ${p.outputs.join(', ')}`);
    lines.push(`    ${p.description}`);
    lines.push(`    ${kindOf(p)}${modeOf(p)}${p.punctuateEveryMs ? `, timers every ${p.punctuateEveryMs} ms` : ''}`);
    for (const s of p.stores) lines.push(`    store ${s.name}${storedAs(s)}: ${s.description}`);
    if (p.discarded.length) lines.push(`    discards ${p.discarded.join(', ')}`);
    lines.push(`    delivery: ${p.delivery}`);
  }
  return lines.join('\n');
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');

/** One Markdown table row per processor: kind, what it reads and writes, its stores, how it runs. */
export function renderProcessorTable(d: TopologyDescription, deadLetters: string): string {
  const rows = ['| processor | kind | reads | writes | stores | runs |', '|---|---|---|---|---|---|'];
  for (const p of d.processors) {
    const writes = p.outputs.filter((o) => o !== deadLetters);
    const stores = p.stores.length ? p.stores.map((s) => `\`${s.name}\`${storedAs(s)}`).join(', ') : 'none';
    const runs = `${modeOf(p)}${p.punctuateEveryMs ? `, timers every ${p.punctuateEveryMs} ms` : ''}`;
    rows.push(`| ${p.name}${storedAs(p)} | ${p.kind} | ${p.inputs.join(', ')} | ${writes.length ? writes.join(', ') : '—'} | ${stores} | ${cell(runs)} |`);
  }
  return rows.join('\n');
}
