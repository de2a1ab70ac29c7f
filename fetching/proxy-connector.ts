// Sockets through an HTTP proxy, as undici connectors, so that a proxied request keeps everything a
// direct one has (socket budget, the 1xx and reset guards, timeouts, TLS verification of the target):
// - tunnelConnector: `CONNECT host:port` (RFC 9110 §9.3.6), then, for an https target, TLS with the
//   target inside the tunnel (SNI and the certificate check carry the target's name);
// - proxyConnector: a plain connection to the proxy, for forwarding http requests (absolute URI).
// The proxy is named by the user: the network policy never applies to it, only to the target. What
// goes wrong with the proxy itself (refused, no answer, a non-2xx answer to CONNECT) is a ProxyError,
// which the fetcher records as `proxy: …`.
import { connect as netConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { proxyName, type ProxyEndpoint } from './proxy-route.js';
import type { TargetTlsOptions } from './tls-policy.js';

export const PROXY_ERROR = 'ERR_CRAWLSTREAM_PROXY';

export class ProxyError extends Error {
  readonly code = PROXY_ERROR;
}

/** What undici hands a connector. */
export interface ConnectParams { hostname: string; protocol: string; port: string; servername?: string | null; [k: string]: unknown }
type Callback = (err: Error | null, socket: Socket | null) => void;
export type Connector = (opts: ConnectParams, cb: Callback) => void;

/** A proxy's reply head is one status line and a few headers; more is not a proxy talking. */
const MAX_HEAD_BYTES = 16 * 1024;

class ConnectTimeout extends Error {
  readonly code = 'UND_ERR_CONNECT_TIMEOUT';
}

/** Opens a connection to the proxy itself (TLS when the proxy URL is https). */
function dialProxy(proxy: ProxyEndpoint): Socket {
  const host = proxy.url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(proxy.url.port || (proxy.url.protocol === 'https:' ? 443 : 80));
  return proxy.url.protocol === 'https:'
    ? tlsConnect({ host, port, servername: isIP(host) ? undefined : host, ALPNProtocols: ['http/1.1'] })
    : netConnect({ host, port });
}

/** A connector whose sockets lead to the proxy, for requests forwarded with an absolute URI. */
export function proxyConnector(proxy: ProxyEndpoint, timeoutMs: number): Connector {
  return (_opts, cb) => {
    const socket = dialProxy(proxy);
    const ready = proxy.url.protocol === 'https:' ? 'secureConnect' : 'connect';
    let done = false;
    const finish = (err: Error | null) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.off('error', onError);
      if (err) {
        socket.destroy();
        cb(err, null);
      } else cb(null, socket);
    };
    const onError = (err: NodeJS.ErrnoException) => finish(new ProxyError(`cannot reach the proxy ${proxyName(proxy)} (${err.code ?? 'error'}: ${err.message})`));
    const timer = setTimeout(() => finish(new ProxyError(`connecting to the proxy ${proxyName(proxy)} took longer than ${timeoutMs} ms`)), timeoutMs);
    socket.once(ready, () => finish(null));
    socket.on('error', onError);
  };
}

/**
 * A connector that asks the proxy for a tunnel to the target and hands undici a socket to the target
 * (TLS over the tunnel for https). Bounded as a direct connect is, handshake included.
 */
export function tunnelConnector(proxy: ProxyEndpoint, timeoutMs: number, tls: () => TargetTlsOptions): Connector {
  return (opts, cb) => {
    const hostname = opts.hostname.replace(/^\[|\]$/g, '');
    const port = opts.port || (opts.protocol === 'https:' ? '443' : '80');
    const authority = `${isIP(hostname) === 6 ? `[${hostname}]` : hostname}:${port}`;
    const socket = dialProxy(proxy);
    let target: TLSSocket | undefined;
    let done = false;
    let stage: 'proxy' | 'connect' | 'target' = 'proxy';
    const finish = (err: Error | null, s?: Socket) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.off('data', onData);
      if (err) {
        target?.destroy();
        socket.destroy();
        cb(err, null);
      } else cb(null, s!);
    };
    const timer = setTimeout(() => finish(stage === 'target'
      ? new ConnectTimeout(`the TLS handshake with ${authority} through the proxy took longer than ${timeoutMs} ms`)
      : new ProxyError(stage === 'proxy'
        ? `connecting to the proxy ${proxyName(proxy)} took longer than ${timeoutMs} ms`
        : `the proxy ${proxyName(proxy)} did not answer CONNECT ${authority} within ${timeoutMs} ms`)), timeoutMs);
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (stage === 'target') return; // the TLS socket on top reports it
      finish(new ProxyError(stage === 'proxy'
        ? `cannot reach the proxy ${proxyName(proxy)} (${err.code ?? 'error'}: ${err.message})`
        : `the proxy ${proxyName(proxy)} closed the connection during CONNECT ${authority} (${err.code ?? 'error'}: ${err.message})`));
    });
    socket.once('close', () => {
      if (stage === 'connect') finish(new ProxyError(`the proxy ${proxyName(proxy)} closed the connection before answering CONNECT ${authority}`));
    });
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) {
        if (head.length > MAX_HEAD_BYTES) finish(new ProxyError(`the proxy ${proxyName(proxy)} answered CONNECT ${authority} with a head over ${MAX_HEAD_BYTES} bytes`));
        return;
      }
      socket.off('data', onData);
      // Unsolicited bytes after the reply belong to the tunnel: buffered until the next reader attaches.
      const rest = head.subarray(end + 4);
      if (rest.length) socket.unshift(rest);
      const reply = parseHead(head.subarray(0, end).toString('latin1'));
      if (reply.status < 200 || reply.status >= 300) {
        const why = reply.proxyStatus ? `; Proxy-Status: ${reply.proxyStatus}` : '';
        return finish(new ProxyError(`the proxy ${proxyName(proxy)} answered ${reply.status || 'garbage'} ${reply.reason} to CONNECT ${authority}${why}`.trim()));
      }
      if (opts.protocol !== 'https:') return finish(null, socket);
      stage = 'target';
      const servername = opts.servername || (isIP(hostname) ? undefined : hostname);
      const { secureContext, rejectUnauthorized } = tls();
      target = tlsConnect({ socket, servername, secureContext, rejectUnauthorized, ALPNProtocols: ['http/1.1'] });
      target.once('secureConnect', () => finish(null, target));
      target.once('error', (err) => finish(err));
    };
    socket.once(proxy.url.protocol === 'https:' ? 'secureConnect' : 'connect', () => {
      stage = 'connect';
      const auth = proxy.authorization ? `Proxy-Authorization: ${proxy.authorization}\r\n` : '';
      socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n${auth}\r\n`);
      socket.on('data', onData);
    });
  };
}

function parseHead(text: string): { status: number; reason: string; proxyStatus: string } {
  const [line, ...headers] = text.split('\r\n');
  const m = /^HTTP\/\d(?:\.\d)? (\d{3})(?: (.*))?$/.exec(line ?? '');
  const proxyStatus = headers.find((h) => /^proxy-status:/i.test(h))?.slice('proxy-status:'.length).trim() ?? '';
  return { status: m ? Number(m[1]) : 0, reason: m?.[2]?.slice(0, 100) ?? '', proxyStatus: proxyStatus.slice(0, 300) };
}
