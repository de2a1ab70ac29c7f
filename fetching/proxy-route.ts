// Which requests go through a proxy: `--proxy URL` for every request, else the environment
// variables users already set (HTTPS_PROXY for https URLs, HTTP_PROXY for http ones, ALL_PROXY for
// both, lower-case names first as curl reads them), except the hosts NO_PROXY names.
//
// NO_PROXY, as curl reads it: comma- or space-separated; `*` alone means no proxy at all; a name
// matches itself and its subdomains (`example.org` and `.example.org` both cover www.example.org);
// `name:port` only that port; an IP address or CIDR (`10.0.0.0/8`) matches IP-literal hosts in it.
// (proxy-from-env reads process.env itself and cannot take --proxy next to NO_PROXY, hence this.)
import { BlockList, isIP } from 'node:net';

export interface ProxyEndpoint {
  url: URL;
  /** host:port as written in a CONNECT line. */
  authority: string;
  /** 'Basic …' from the URL's user and password, '' without. */
  authorization: string;
}

export class ProxyRoute {
  private readonly http: ProxyEndpoint | undefined;
  private readonly https: ProxyEndpoint | undefined;
  private readonly none: boolean;
  private readonly names: { name: string; port: number }[] = [];
  private readonly addresses = new BlockList();
  private hasAddresses = false;

  /**
   * @param flag --proxy URL ('' or undefined: from the environment)
   * @throws Error naming the variable or flag whose proxy URL cannot be used
   */
  constructor(flag: string | undefined, env: Record<string, string | undefined> = process.env) {
    const pick = (...names: string[]) => names.map((n) => [n, env[n]] as const).find(([, v]) => v !== undefined && v.trim() !== '');
    const all = pick('all_proxy', 'ALL_PROXY');
    const of = (entry: readonly [string, string | undefined] | undefined) => (entry ? endpoint(entry[1]!, entry[0]) : undefined);
    if (flag) {
      this.http = this.https = endpoint(flag, '--proxy');
    } else {
      this.http = of(pick('http_proxy', 'HTTP_PROXY') ?? all);
      this.https = of(pick('https_proxy', 'HTTPS_PROXY') ?? all);
    }
    const noProxy = (pick('no_proxy', 'NO_PROXY')?.[1] ?? '').toLowerCase();
    this.none = noProxy.trim() === '*';
    for (const raw of noProxy.split(/[,\s]+/).filter(Boolean)) this.addExclusion(raw);
  }

  /** True when some request would go through a proxy. */
  get active(): boolean {
    return (this.http !== undefined || this.https !== undefined) && !this.none;
  }

  /** The proxy for this URL, or undefined to connect directly. */
  proxyFor(url: URL): ProxyEndpoint | undefined {
    const proxy = url.protocol === 'https:' ? this.https : url.protocol === 'http:' ? this.http : undefined;
    if (!proxy || this.none) return undefined;
    const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    if (this.hasAddresses && isIP(host) && this.addresses.check(host, isIP(host) === 6 ? 'ipv6' : 'ipv4')) return undefined;
    for (const n of this.names) {
      if (n.port && n.port !== port) continue;
      if (host === n.name || host.endsWith(`.${n.name}`)) return undefined;
    }
    return proxy;
  }

  private addExclusion(raw: string): void {
    const cidr = /^([0-9a-f.:]+)\/(\d{1,3})$/.exec(raw);
    if (cidr && isIP(cidr[1])) {
      const type = isIP(cidr[1]) === 6 ? 'ipv6' : 'ipv4';
      const bits = Number(cidr[2]);
      if (bits <= (type === 'ipv6' ? 128 : 32)) {
        this.addresses.addSubnet(cidr[1], bits, type);
        this.hasAddresses = true;
      }
      return;
    }
    const bare = raw.replace(/^\[|\]$/g, '');
    if (isIP(bare)) {
      this.addresses.addAddress(bare, isIP(bare) === 6 ? 'ipv6' : 'ipv4');
      this.hasAddresses = true;
      return;
    }
    const m = /^(.*?)(?::(\d+))?$/.exec(raw)!;
    // An address with a port compares as a name: equal to the URL's host.
    const name = m[1].replace(/^\*?\./, '').replace(/^\[|\]$/g, '');
    if (name) this.names.push({ name, port: m[2] ? Number(m[2]) : 0 });
  }
}

function endpoint(value: string, source: string): ProxyEndpoint {
  const text = value.trim();
  let url: URL;
  try {
    url = new URL(text.includes('://') ? text : `http://${text}`);
  } catch {
    throw new Error(`${source}: "${text.slice(0, 100)}" is not a proxy URL (http://HOST:PORT)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`${source}: ${url.protocol}// proxies are not supported, only http:// and https:// ones (HTTP CONNECT and forwarding)`);
  }
  if (!url.hostname) throw new Error(`${source}: "${text.slice(0, 100)}" names no proxy host`);
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const user = decodeURIComponent(url.username);
  const authorization = user || url.password ? `Basic ${Buffer.from(`${user}:${decodeURIComponent(url.password)}`).toString('base64')}` : '';
  return { url, authority: `${url.hostname}:${port}`, authorization };
}

/** The proxy for messages, without its credentials. */
export function proxyName(p: ProxyEndpoint): string {
  return `${p.url.protocol}//${p.authority}`;
}
