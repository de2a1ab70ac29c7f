// A topology: declared topics and the processors wired to them, checked when it is built. Runtimes
// (embedded, Kafka, test driver) only read it. The dead-letter topic is part of every topology.
import type { AnyProcessorDefinition } from './api.js';
import type { AnyTopic, TopicSpec } from './topic.js';
import { DEAD_LETTERS, deadLettersTopic } from './dead-letters.js';
import { renderDescription, topologyDescription } from './topology-description.js';
import { storedName } from './stores/key-value-store.js';

/** A processor as placed in a topology: its definition and the physical topics it reads and writes. */
export interface ProcessorNode<S = any> {
  /** The processor's name in code, docs and messages. */
  readonly name: string;
  /** The name its identity is persisted under (`storedAs`, else `name`): see ProcessorDefinition.storedAs. */
  readonly storedName: string;
  readonly definition: AnyProcessorDefinition<S>;
  /** Physical topics read, written (dead letters included). */
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  /** Declared topic name → physical topic (a replay runs processors over private topics). */
  readonly physical: ReadonlyMap<string, string>;
  /** Declared outputs whose records are dropped and counted, not written (a replay's feedback). */
  readonly discarded: ReadonlySet<string>;
}

export interface Topology<S = any, Topics = Record<string, unknown>> {
  readonly topics: ReadonlyMap<string, AnyTopic>;
  readonly processors: readonly ProcessorNode<S>[];
  /** Never set: carries the topic → value map for typed test drivers. */
  readonly __topics?: Topics;
}

export interface Placement {
  /** Declared name → physical name, for topics that run under another name. */
  rename?: Readonly<Record<string, string>>;
  /** Declared outputs to drop (counted as `discarded.<topic>`). */
  discard?: readonly string[];
}

// `S` is what the runtime will be given; each processor's `create` must accept it, so a topology
// only builds when its services satisfy every processor.
export class TopologyBuilder<S = object, Topics = { [DEAD_LETTERS]: typeof deadLettersTopic extends TopicSpec<string, infer V> ? V : never }> {
  private readonly topics = new Map<string, AnyTopic>([[DEAD_LETTERS, deadLettersTopic]]);
  private readonly nodes: ProcessorNode<S>[] = [];

  topic<N extends string, V>(spec: TopicSpec<N, V>): TopologyBuilder<S, Topics & { [K in N]: V }> {
    if (this.topics.has(spec.name)) throw new Error(`topic ${spec.name} declared twice`);
    this.topics.set(spec.name, spec);
    return this as never;
  }

  processor(def: AnyProcessorDefinition<S>, placement: Placement = {}): this {
    if (this.nodes.some((p) => p.name === def.name)) throw new Error(`processor ${def.name} declared twice`);
    // Either name selects a processor (`--processors`), and the stored one is its persisted identity:
    // neither may be taken by another processor.
    const clash = this.nodes.find((p) => [p.name, p.storedName].some((n) => n === def.name || n === storedName(def)));
    if (clash) throw new Error(`processor ${def.name}${def.storedAs ? ` (stored as ${def.storedAs})` : ''} shares a name with processor ${clash.name} (stored as ${clash.storedName})`);
    if (def.inputs.length === 0) throw new Error(`processor ${def.name} reads no topic`);
    if (def.kind !== undefined && def.kind !== 'sink' && def.kind !== 'transform') throw new Error(`processor ${def.name}: kind ${JSON.stringify(def.kind)} is neither 'transform' nor 'sink'`);
    if (def.kind === 'sink' && def.outputs.length) {
      throw new Error(`processor ${def.name} is declared a sink but has outputs (${def.outputs.map((o) => o.name).join(', ')}): a sink forwards nothing`);
    }
    if (def.kind !== 'sink' && def.outputs.length === 0) {
      throw new Error(`processor ${def.name} has no outputs: declare it kind: 'sink' if it ends the dataflow (writes a database or files), or give it outputs`);
    }
    if (def.concurrency && def.stores.length) {
      // Concurrent records would interleave their store writes; a commit could then hold state
      // that belongs to a record still in progress.
      throw new Error(`processor ${def.name} runs records concurrently and cannot own stores`);
    }
    const physical = new Map<string, string>();
    const discarded = new Set(placement.discard ?? []);
    for (const d of discarded) {
      if (!def.outputs.some((o) => o.name === d)) throw new Error(`processor ${def.name} has no output ${d} to discard`);
    }
    // A discarded output is never written: it needs no topic in this topology.
    for (const t of [...def.inputs, ...def.outputs.filter((o) => !discarded.has(o.name)), deadLettersTopic]) {
      const name = placement.rename?.[t.name] ?? t.name;
      const declared = this.topics.get(name);
      if (!declared) throw new Error(`processor ${def.name} names undeclared topic ${name}`);
      if (JSON.stringify(declared.schema) !== JSON.stringify(t.schema)) {
        throw new Error(`processor ${def.name} expects ${t.name} with another schema than the topology declares`);
      }
      physical.set(t.name, name);
    }
    // What a processor projects of its inputs (skips, asBytes) must name fields its input topics have.
    const fieldTypes = (topic: string, notRead: string) => {
      const input = def.inputs.find((t) => t.name === topic);
      if (!input) throw new Error(`processor ${def.name} ${notRead}`);
      return new Map(((input.schema as { fields?: { name: string; type: unknown }[] }).fields ?? []).map((f) => [f.name, f.type]));
    };
    for (const [topic, fields] of Object.entries(def.skips ?? {}) as [string, readonly string[]][]) {
      const types = fieldTypes(topic, `skips fields of ${topic}, which it does not read`);
      for (const f of fields) if (!types.has(f)) throw new Error(`processor ${def.name} skips field ${f}, which ${topic} does not have`);
    }
    for (const [topic, fields] of Object.entries(def.asBytes ?? {}) as [string, readonly string[]][]) {
      const types = fieldTypes(topic, `reads fields of ${topic} as bytes, but it does not read ${topic}`);
      for (const f of fields) if (types.get(f) !== 'string') throw new Error(`processor ${def.name} reads field ${f} of ${topic} as bytes, but it is not a string field`);
    }
    const outputs = [...def.outputs.filter((o) => !discarded.has(o.name)), deadLettersTopic].map((t) => physical.get(t.name)!);
    this.nodes.push({ name: def.name, storedName: storedName(def), definition: def, inputs: def.inputs.map((t) => physical.get(t.name)!), outputs, physical, discarded });
    return this;
  }

  build(): Topology<S, Topics> {
    const owners = new Map<string, string>();
    // Stores share one key space in a data directory, under their stored names.
    for (const p of this.nodes) {
      for (const s of p.definition.stores) {
        for (const n of new Set([s.name, storedName(s)])) {
          const owner = owners.get(n);
          if (owner) throw new Error(`store ${s.name}${s.storedAs ? ` (stored as ${s.storedAs})` : ''} is attached to both ${owner} and ${p.name}`);
          owners.set(n, p.name);
        }
      }
    }
    return { topics: new Map(this.topics), processors: [...this.nodes] };
  }
}

/** A processor that ends the dataflow (declared `kind: 'sink'`): it forwards nothing. */
export function isSink(node: ProcessorNode): boolean {
  return node.definition.kind === 'sink';
}

/**
 * The processors a worker runs: all, or a chosen subset (`--processors a,b`), in topology order. A
 * processor is chosen by its name or its stored name, so commands written before a rename still work.
 */
export function selectProcessors<S>(topology: Topology<S, any>, names?: readonly string[]): ProcessorNode<S>[] {
  if (!names || names.length === 0) return [...topology.processors];
  const known = new Set(topology.processors.flatMap((p) => [p.name, p.storedName]));
  const unknown = names.filter((n) => !known.has(n));
  if (unknown.length) throw new Error(`unknown processor(s) ${unknown.join(', ')}; known: ${topology.processors.map((p) => p.name).join(', ')}`);
  return topology.processors.filter((p) => names.includes(p.name) || names.includes(p.storedName));
}

/** The topology in words, from its declarations, as Kafka Streams' Topology.describe(). */
export function describeTopology(topology: Topology<any, any>): string {
  return renderDescription(topologyDescription(topology));
}
