// Where a profiled crawl's main-thread time goes: self time by function and by module from a V8
// .cpuprofile (node --cpu-prof). Native work that runs off the main thread (LevelDB compaction, chdb's
// own threads, libuv's pool) does not appear here; native work called from JS is charged to its caller.
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface SelfTime {
  name: string;
  selfMs: number;
  /** Share of all sampled time, idle included. */
  share: number;
}

export interface ProfileSummary {
  sampledMs: number;
  idleShare: number;
  topFunctions: SelfTime[];
  topModules: SelfTime[];
  /**
   * Self time charged to the nearest crawlstream function on the stack (itself, or the project code that
   * called into a library, Node or V8): which of our functions to optimize. Idle, GC and program excluded.
   */
  topProjectCallers: SelfTime[];
  /** Shares of the busy (non-idle) sampled time by component of the per-page budget (see componentOf). */
  components: Record<Component, number>;
}

/** The per-page CPU budget's components that run on the main thread (bench/budget.ts). */
export type Component = 'sink' | 'body' | 'parse' | 'gc' | 'rest';

/**
 * The component a sample belongs to, from its whole stack: body storage (fetching/body-codec, the LZ4
 * binding), the sink (the sink stage, clickhouse/, the ClickHouse client and chdb's JS), parse on the
 * main thread (handing pages to the workers), the garbage collector, and the rest (scheduling, HTTP,
 * Avro, LevelDB, commits). The first matching frame from the leaf up decides.
 */
export function componentOf(stack: CallFrame[], root: string): Component {
  if (stack[0]?.functionName === '(garbage collector)') return 'gc';
  for (const f of stack) {
    const mod = moduleOf(f, root);
    if (mod === 'fetching/body-codec.js' || mod === 'npm:lz4-napi') return 'body';
    if (mod.startsWith('clickhouse/') || mod.startsWith('stages/clickhouse-sink/') || mod === 'npm:@clickhouse/client' || mod === 'npm:@clickhouse/client-common' || mod === 'npm:chdb') return 'sink';
    if (mod.startsWith('parsing/') || mod.startsWith('stages/parse/')) return 'parse';
  }
  return 'rest';
}

/** A readable module name: a package, a project file, a Node internal area, or a V8 pseudo-node. */
export function moduleOf(frame: CallFrame, root: string): string {
  const { url, functionName } = frame;
  if (!url) return functionName.startsWith('(') ? functionName : '(native / V8 builtins)';
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const parts = url.slice(nm + '/node_modules/'.length).split('/');
    return `npm:${parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]}`;
  }
  if (url.startsWith('node:')) return url.split('/').slice(0, 2).join('/');
  const path = url.replace(/^file:\/\//, '');
  if (path.startsWith(root)) return path.slice(root.length).replace(/^\/?dist\//, '').replace(/^\//, '');
  return path;
}

export function summarizeProfile(file: string, root: string, top = 15): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    selfUs.set(profile.samples[i], (selfUs.get(profile.samples[i]) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const isProject = (f: CallFrame) => f.url !== '' && !f.url.includes('/node_modules/') && !f.url.startsWith('node:');
  const projectCaller = (id: number): string | undefined => {
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const f = byId.get(cur)!.callFrame;
      if (isProject(f)) return `${f.functionName || '(anonymous)'} ${moduleOf(f, root)}:${f.lineNumber + 1}`;
    }
    return undefined;
  };
  const stackOf = (id: number): CallFrame[] => {
    const out: CallFrame[] = [];
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) out.push(byId.get(cur)!.callFrame);
    return out;
  };
  const components: Record<Component, number> = { sink: 0, body: 0, parse: 0, gc: 0, rest: 0 };
  let busy = 0;
  const callers = new Map<string, number>();
  const fns = new Map<string, number>();
  const mods = new Map<string, number>();
  let idle = 0;
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === '(idle)') idle += us;
    else {
      components[componentOf(stackOf(id), root)] += us;
      busy += us;
    }
    const mod = moduleOf(frame, root);
    const fn = frame.url ? `${frame.functionName || '(anonymous)'} ${mod}:${frame.lineNumber + 1}` : mod === '(native / V8 builtins)' ? `${frame.functionName} (native)` : mod;
    fns.set(fn, (fns.get(fn) ?? 0) + us);
    mods.set(mod, (mods.get(mod) ?? 0) + us);
    const caller = frame.functionName.startsWith('(') && !frame.url ? undefined : projectCaller(id);
    if (caller) callers.set(caller, (callers.get(caller) ?? 0) + us);
  }
  const rank = (m: Map<string, number>): SelfTime[] => [...m].sort((a, b) => b[1] - a[1]).slice(0, top)
    .map(([name, us]) => ({ name, selfMs: Math.round(us / 1000), share: Math.round((us / total) * 1000) / 1000 }));
  return {
    sampledMs: Math.round(total / 1000),
    idleShare: Math.round((idle / total) * 1000) / 1000,
    topFunctions: rank(fns),
    topModules: rank(mods),
    topProjectCallers: rank(callers),
    components: Object.fromEntries(Object.entries(components).map(([k, us]) => [k, busy > 0 ? Math.round((us / busy) * 1000) / 1000 : 0])) as Record<Component, number>,
  };
}
