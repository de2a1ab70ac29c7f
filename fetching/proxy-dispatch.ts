// Which undici agent carries a proxied request, and what the proxy's answers mean. An https URL goes
// through a CONNECT tunnel (its own agent, so sockets and keep-alive stay per target origin); an http
// URL is forwarded: sent to the proxy with the absolute URI, on the proxy's sockets.
import type { Agent } from 'undici';
import type { ErrorKind } from './response-collector.js';
import { proxyName, type ProxyEndpoint } from './proxy-route.js';
import { proxyConnector, tunnelConnector, type Connector } from './proxy-connector.js';
import type { TargetTlsOptions } from './tls-policy.js';

export class ProxyAgents {
  /** Per proxy: an agent for CONNECT tunnels (https targets) and one forwarding http requests to it. */
  private readonly agents = new Map<string, { tunnel: Agent; forward: Agent }>();

  constructor(private readonly makeAgent: (connector: Connector) => Agent, private readonly timeoutMs: number, private readonly tls: () => TargetTlsOptions) {}

  route(proxy: ProxyEndpoint, url: URL, headers: Record<string, string>): { agent: Agent; origin: string; path: string; headers: Record<string, string> } {
    let agents = this.agents.get(proxy.url.href);
    if (!agents) {
      agents = { tunnel: this.makeAgent(tunnelConnector(proxy, this.timeoutMs, this.tls)), forward: this.makeAgent(proxyConnector(proxy, this.timeoutMs)) };
      this.agents.set(proxy.url.href, agents);
    }
    if (url.protocol !== 'http:') return { agent: agents.tunnel, origin: url.origin, path: url.pathname + url.search, headers };
    const wire: Record<string, string> = { host: url.host, ...headers };
    if (proxy.authorization) wire['proxy-authorization'] = proxy.authorization;
    return { agent: agents.forward, origin: proxy.url.origin, path: url.href, headers: wire };
  }

  async close(): Promise<void> {
    for (const { tunnel, forward } of this.agents.values()) await Promise.all([tunnel.close(), forward.close()]);
  }
}

/**
 * What the proxy answered in the target's place: 407, or an error it marks as its own with a
 * Proxy-Status error (RFC 9209), is a proxy failure, not the target's response. A tunnel's failures never
 * get this far (they are ProxyErrors); a forwarding proxy's connection failures are the proxy's too.
 */
export function proxyVerdict(proxy: ProxyEndpoint, url: URL, c: { status: number; errorKind: ErrorKind; error: string },
  head: { first(name: string): string | undefined } | null): { status: number; errorKind: ErrorKind; error: string } {
  const proxyStatus = head?.first('proxy-status');
  if (c.status === 407 || (c.status >= 400 && proxyStatus && /;\s*error=/i.test(proxyStatus))) {
    const why = proxyStatus ? `; Proxy-Status: ${proxyStatus.slice(0, 300)}` : '';
    return { status: 0, errorKind: 'proxy', error: `proxy: the proxy ${proxyName(proxy)} answered ${c.status} for ${url.href.slice(0, 200)}${why}` };
  }
  if (c.status === 0 && c.errorKind === 'connect' && url.protocol === 'http:') {
    return { status: 0, errorKind: 'proxy', error: `proxy: ${c.error.slice(c.error.indexOf(':') + 1).trim()}` };
  }
  return c;
}
