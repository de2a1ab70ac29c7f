// The processes behind the dev services, so their CPU can be charged to a crawl: from the pid files of
// scripts/dev-services.sh when this checkout runs them, else by the process listening on each service's
// port (a worktree uses the services of the main checkout and has no pid files of its own).
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';

export type ServiceName = 'kafka' | 'schema-registry' | 'clickhouse';

/** Inodes of sockets listening on `port` (IPv4 and IPv6). */
function listeningInodes(port: number): Set<string> {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  const out = new Set<string>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      // local_address rem_address st … inode: state 0A is LISTEN.
      if (f.length > 9 && f[1].endsWith(`:${hex}`) && f[3] === '0A') out.add(f[9]);
    }
  }
  return out;
}

/** The pid that holds a socket listening on `port`, if this user can see it. */
export function pidListeningOn(port: number): number | undefined {
  const inodes = listeningInodes(port);
  if (inodes.size === 0) return undefined;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${name}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${name}/fd/${fd}`));
        if (m && inodes.has(m[1])) return Number(name);
      } catch {
        // closed meanwhile
      }
    }
  }
  return undefined;
}

const portOf = (address: string) => Number(/:(\d+)(?:\/|$)/.exec(address)?.[1]);

export function servicePids(root: string, urls: { brokers: string; registry: string; clickhouse: string }): Record<string, number> {
  const out: Record<string, number> = {};
  const dir = process.env.DEV_SERVICES_DIR ?? join(root, '.services');
  const ports: Record<ServiceName, number> = {
    kafka: portOf(urls.brokers.split(',')[0]), 'schema-registry': portOf(urls.registry), clickhouse: portOf(urls.clickhouse),
  };
  for (const name of Object.keys(ports) as ServiceName[]) {
    const f = join(dir, 'run', `${name}.pid`);
    const fromFile = existsSync(f) ? Number(readFileSync(f, 'utf8').trim()) : NaN;
    const pid = Number.isInteger(fromFile) && existsSync(`/proc/${fromFile}`) ? fromFile : pidListeningOn(ports[name]);
    if (pid !== undefined) out[name] = pid;
  }
  return out;
}
