// Topology declaration: topics, processors and the stores they own. The crawler's topology is
// wired in topology/crawl-topology.ts; runtimes (embedded, Kafka, test driver) only read it.
import type { Processor } from './processor.js';
import type { StoreSpec } from './stores/key-value-store.js';
import type { SchemaName } from '../schemas/schema-files.js';
import type { CrawlConfig } from '../crawl/config.js';

export interface TopicSpec {
  name: string;
  schema: SchemaName;
  description: string;
  /** 'until-consumed': segments go once every consumer is past them. Otherwise kept for replay. */
  retention: 'until-consumed' | { ms: number };
  /** Internal repartition topics are not meant for users to consume. */
  internal?: boolean;
  /** Largest encoded record; sets max.message.bytes on Kafka. */
  maxRecordBytes: number;
}

/** What a processor is given when a runtime creates one instance per task. */
export interface ProcessorEnvironment {
  config: CrawlConfig;
  /** Shared, process-wide resources a processor may need (an HTTP agent, a ClickHouse client). */
  resources: ProcessorResources;
}

export interface ProcessorResources {
  [name: string]: unknown;
}

export interface ProcessorDefinition {
  name: string;
  description: string;
  stores: StoreSpec<any, any>[];
  /**
   * Sequential processors handle one record at a time. Concurrent ones may have up to
   * `maxInFlight` records pending; with `perKeyOrder`, records of one key run one after another.
   * Positions are committed only below the oldest record still in progress (DESIGN §3.4).
   */
  concurrency?: { maxInFlight: number; perKeyOrder: boolean };
  punctuateEveryMs?: number;
  /** What can happen to a record on a crash, in plain words; shown in docs and `status`. */
  delivery: string;
  create(env: ProcessorEnvironment): Processor<any>;
}

export interface ProcessorNode extends ProcessorDefinition {
  inputs: string[];
  outputs: string[];
  /**
   * Topic names as the processor's code knows them → the topics the node really reads and
   * writes. Empty for the crawl; a replay runs processors over private topics this way.
   */
  topicNames?: Record<string, string>;
}

export interface Topology {
  topics: ReadonlyMap<string, TopicSpec>;
  processors: readonly ProcessorNode[];
}

export function defineProcessor(def: ProcessorDefinition): ProcessorDefinition {
  return def;
}

export class TopologyBuilder {
  private readonly topics = new Map<string, TopicSpec>();
  private readonly processors: ProcessorNode[] = [];

  topic(spec: TopicSpec): this {
    if (this.topics.has(spec.name)) throw new Error(`topic ${spec.name} declared twice`);
    this.topics.set(spec.name, spec);
    return this;
  }

  processor(def: ProcessorDefinition, wiring: { from: string[]; to: string[] }): this {
    for (const t of [...wiring.from, ...wiring.to]) {
      if (!this.topics.has(t)) throw new Error(`processor ${def.name} names undeclared topic ${t}`);
    }
    if (this.processors.some((p) => p.name === def.name)) throw new Error(`processor ${def.name} declared twice`);
    this.processors.push({ ...def, inputs: wiring.from, outputs: wiring.to });
    return this;
  }

  build(): Topology {
    const storeOwners = new Map<string, string>();
    for (const p of this.processors) {
      for (const s of p.stores) {
        const owner = storeOwners.get(s.name);
        if (owner) throw new Error(`store ${s.name} is attached to both ${owner} and ${p.name}`);
        storeOwners.set(s.name, p.name);
      }
    }
    return { topics: new Map(this.topics), processors: [...this.processors] };
  }
}

/** The processors a worker runs: all, or a chosen subset (`--processors a,b`). */
export function selectProcessors(topology: Topology, names?: string[]): ProcessorNode[] {
  if (!names || names.length === 0) return [...topology.processors];
  const known = new Set(topology.processors.map((p) => p.name));
  const unknown = names.filter((n) => !known.has(n));
  if (unknown.length) throw new Error(`unknown processor(s) ${unknown.join(', ')}; known: ${[...known].join(', ')}`);
  return topology.processors.filter((p) => names.includes(p.name));
}
