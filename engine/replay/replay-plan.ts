// A replay re-runs chosen processors over a retained topic without redoing what produced it. It reads
// the real topic under its own consumer identity and writes private topics (`replay.<id>.<topic>`),
// never the application's own: what runs live is not disturbed, and nothing a replay finds feeds
// back into it. Every change a replay makes to the graph is decided here, once, and checked when the
// plan's topology is built: an output that some replayed processor reads becomes a private topic; an
// output no replayed processor reads is discarded (counted, not written); dead letters go private.
import { selectProcessors, TopologyBuilder, type Topology } from '../topology.js';
import { DEAD_LETTERS } from '../dead-letters.js';

const STATELESS_ONLY = 'a replay re-runs stateless processors; stateful ones would redo what the log already holds';

export interface ReplayPlan<S> {
  id: string;
  from: string;
  topology: Topology<S>;
  privateTopics: string[];
}

export function privateTopic(id: string, topic: string): string {
  return `replay.${id}.${topic}`;
}

export function planReplay<S>(base: Topology<S>, options: { id: string; from: string; processors: readonly string[] }): ReplayPlan<S> {
  const { id, from } = options;
  const fromSpec = base.topics.get(from);
  if (!fromSpec) throw new Error(`no topic named ${from}; topics: ${[...base.topics.keys()].join(', ')}`);
  if (fromSpec.retention === 'until-consumed') {
    const retained = [...base.topics.values()].filter((t) => t.retention !== 'until-consumed' && t.name !== DEAD_LETTERS).map((t) => t.name);
    throw new Error(`${from} is not retained for replay (only ${retained.join(', ')} are)`);
  }
  const nodes = options.processors.length ? selectProcessors(base, options.processors) : [];
  if (nodes.length === 0) throw new Error('choose at least one processor to replay, e.g. --processors parse,clickhouse-sink');

  const read = new Set(nodes.flatMap((n) => n.definition.inputs.map((t) => t.name)));
  const builder = new TopologyBuilder<S>().topic(fromSpec);
  const privateTopics: string[] = [];
  const rename: Record<string, string> = {};
  const addPrivate = (name: string) => {
    if (name === from || rename[name]) return;
    rename[name] = privateTopic(id, name);
    builder.topic({ ...base.topics.get(name)!, name: rename[name], retention: 'until-consumed', internal: true });
    privateTopics.push(rename[name]);
  };
  addPrivate(DEAD_LETTERS);
  for (const node of nodes) {
    const def = node.definition;
    if (def.stores.length) throw new Error(`cannot replay ${node.name}: ${STATELESS_ONLY}`);
    const inputs = def.inputs.map((t) => t.name);
    const fed = inputs.filter((t) => t === from || nodes.some((n) => n.definition.outputs.some((o) => o.name === t)));
    if (fed.length === 0) throw new Error(`${node.name} reads none of ${from} or the replayed processors' outputs; replay it together with what feeds it`);
    for (const t of inputs) if (t !== from) addPrivate(t);
    for (const o of def.outputs) if (read.has(o.name)) addPrivate(o.name);
  }
  for (const node of nodes) {
    const discard = node.definition.outputs.map((o) => o.name).filter((o) => !read.has(o));
    builder.processor(node.definition, { rename, discard });
  }
  return { id, from, topology: builder.build(), privateTopics };
}
