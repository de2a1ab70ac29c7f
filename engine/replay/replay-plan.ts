// A replay re-runs chosen processors over a retained topic (usually `fetched`) without fetching
// again. It reads the real topic under its own consumer identity and writes to private topics
// (`replay.<id>.<topic>`), never into the crawl's own: a live crawl is not disturbed, and nothing
// a replay finds (links, redirects) feeds back into the frontier.
import { TopologyBuilder, type ProcessorNode, type Topology } from '../topology.js';

/** Topics whose records would change what the crawl does next; a replay never writes them. */
const FEEDBACK_TOPICS = new Set(['discovered-urls', 'scheduled']);
const STATELESS_ONLY = 'a replay re-runs stateless processors (parse, simhash-bands, sink); stateful ones would redo the crawl';

export interface ReplayPlan {
  id: string;
  from: string;
  topology: Topology;
  privateTopics: string[];
}

export function privateTopic(id: string, topic: string): string {
  return `replay.${id}.${topic}`;
}

export function planReplay(base: Topology, options: { id: string; from: string; processors: string[] }): ReplayPlan {
  const { id, from } = options;
  const fromSpec = base.topics.get(from);
  if (!fromSpec) throw new Error(`no topic named ${from}; topics: ${[...base.topics.keys()].join(', ')}`);
  if (fromSpec.retention === 'until-consumed') throw new Error(`${from} is not retained for replay (only ${[...base.topics.values()].filter((t) => t.retention !== 'until-consumed').map((t) => t.name).join(', ')} are)`);
  const known = new Set(base.processors.map((p) => p.name));
  const unknown = options.processors.filter((p) => !known.has(p));
  if (unknown.length) throw new Error(`unknown processor(s) ${unknown.join(', ')}; known: ${[...known].join(', ')}`);

  const builder = new TopologyBuilder().topic(fromSpec);
  const available = new Map<string, string>([[from, from]]); // logical → physical
  const privateTopics: string[] = [];
  const addPrivate = (logical: string) => {
    if (available.has(logical)) return available.get(logical)!;
    const spec = base.topics.get(logical)!;
    const physical = privateTopic(id, logical);
    builder.topic({ ...spec, name: physical, retention: 'until-consumed', internal: true });
    available.set(logical, physical);
    privateTopics.push(physical);
    return physical;
  };
  addPrivate('dead-letters');
  const nodes: { node: ProcessorNode; inputs: string[]; outputs: string[] }[] = [];
  for (const node of base.processors) {
    if (!options.processors.includes(node.name)) continue;
    if (node.stores.length) throw new Error(`cannot replay ${node.name}: ${STATELESS_ONLY}`);
    const inputs = node.inputs.filter((t) => available.has(t));
    if (inputs.length === 0) throw new Error(`${node.name} reads none of ${[...available.keys()].filter((t) => t !== 'dead-letters').join(', ')}; replay it together with what feeds it`);
    const outputs = node.outputs.filter((t) => !FEEDBACK_TOPICS.has(t));
    const topicNames: Record<string, string> = {};
    for (const t of [...inputs, ...outputs]) topicNames[t] = t === from ? from : addPrivate(t);
    nodes.push({ node: { ...node, topicNames }, inputs: inputs.map((t) => topicNames[t]), outputs: outputs.map((t) => topicNames[t]) });
  }
  if (nodes.length === 0) throw new Error('choose at least one processor to replay, e.g. --processors parse,sink');
  for (const { node, inputs, outputs } of nodes) builder.processor(node, { from: inputs, to: outputs });
  return { id, from, topology: builder.build(), privateTopics };
}
