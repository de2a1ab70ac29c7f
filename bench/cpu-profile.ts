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
  const callers = new Map<string, number>();
  const fns = new Map<string, number>();
  const mods = new Map<string, number>();
  let idle = 0;
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === '(idle)') idle += us;
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
  };
}
