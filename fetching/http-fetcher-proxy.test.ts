// Through a proxy: CONNECT for https targets, forwarding for http ones, NO_PROXY, names only the proxy
// can resolve, and the proxy's own failures recorded as `proxy:` errors.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fetcherTestKit } from './testing/test-kit.js';
import { closedPort } from './testing/test-servers.js';
import { pinnedResolver } from './dns-cache.js';
import { ProxyRoute } from './proxy-route.js';
import { testCertificates } from '../test-web/tls-certs.js';
import { startTestProxy, type TestProxy } from '../test-web/test-proxy.js';

const certs = testCertificates({ names: ['good.tls.test', 'other.tls.test'], expiredName: 'expired.tls.test', selfSignedName: 'self.tls.test' });
const { fetcher, http, https } = fetcherTestKit();
const proxies: TestProxy[] = [];
after(async () => {
  for (const p of proxies) await p.close();
});

async function proxy(o: Parameters<typeof startTestProxy>[0]): Promise<TestProxy> {
  const p = await startTestProxy(o);
  proxies.push(p);
  return p;
}

describe('proxy', () => {
  it('should tunnel https with CONNECT and forward http, reaching names only the proxy resolves, the target\'s certificate checked', async () => {
    const secure = await https('127.0.0.31', certs.good, (req, res) => res.end(`secure ${req.url}`));
    const plain = await http('127.0.0.32', (req, res) => res.end(`plain ${req.url} host=${req.headers.host} auth=${req.headers['proxy-authorization'] ?? ''}`));
    const p = await proxy({ names: { 'good.tls.test': '127.0.0.31', 'plain.proxy.test': '127.0.0.32' }, credentials: 'crawler:s3cret' });
    const withAuth = p.url.replace('http://', 'http://crawler:s3cret@');
    // The crawler's own DNS knows neither name: behind a proxy, that is the proxy's business.
    const f = fetcher({ proxy: new ProxyRoute(withAuth, {}), tls: { verify: 'on', ca: certs.caPem } });
    const s = await f.fetch(`https://good.tls.test:${secure.port}/a`);
    assert.equal(s.error, '');
    assert.equal(s.body.toString(), 'secure /a');
    const h = await f.fetch(`http://plain.proxy.test:${plain.port}/b?c=1`);
    assert.equal(h.error, '');
    assert.equal(h.body.toString(), `plain /b?c=1 host=plain.proxy.test:${plain.port} auth=`, 'the origin never sees the proxy\'s credentials');
    assert.deepEqual(h.requestHeaders[0], ['host', `plain.proxy.test:${plain.port}`]);
    assert.deepEqual(p.log.map((e) => [e.method, e.target, e.status]), [
      ['CONNECT', `good.tls.test:${secure.port}`, 200],
      ['GET', `http://plain.proxy.test:${plain.port}/b?c=1`, 200],
    ]);
    // The resolve stage keys such requests by name, the address being unknown here.
    assert.deepEqual(await f.resolveAddress('good.tls.test', `https://good.tls.test:${secure.port}/`), { address: '', key: 'good.tls.test (through the proxy)' });
  });

  it('should record the proxy\'s failures as proxy: errors, never as the target\'s answer', async () => {
    const p = await proxy({ names: { 'good.tls.test': '127.0.0.31' }, refuse: ['refused.proxy.test'], credentials: 'a:b' });
    const noAuth = fetcher({ proxy: new ProxyRoute(p.url, {}) });
    const tunnel407 = await noAuth.fetch('https://good.tls.test/');
    assert.equal(tunnel407.status, 0);
    assert.match(tunnel407.error, /^proxy: the proxy http:\/\/127\.0\.0\.1:\d+ answered 407 .*CONNECT good\.tls\.test:443; Proxy-Status: test-proxy; error=proxy_auth_required/);
    const forward407 = await noAuth.fetch('http://good.tls.test/');
    assert.equal(forward407.status, 0);
    assert.match(forward407.error, /^proxy: .*answered 407/);
    const authed = fetcher({ proxy: new ProxyRoute(p.url.replace('http://', 'http://a:b@'), {}) });
    const refused = await authed.fetch('http://refused.proxy.test/');
    assert.match(refused.error, /^proxy: .*answered 403 .*error=destination_ip_prohibited/);
    const unknown = await authed.fetch('https://nowhere.proxy.test/');
    assert.match(unknown.error, /^proxy: .*answered 502 .*CONNECT nowhere\.proxy\.test:443; Proxy-Status: test-proxy; error=dns_error/);
    const down = fetcher({ proxy: new ProxyRoute(`http://127.0.0.1:${await closedPort('127.0.0.1')}`, {}) });
    for (const url of ['https://good.tls.test/', 'http://good.tls.test/']) {
      const o = await down.fetch(url);
      assert.equal(o.errorKind, 'proxy', o.error);
      assert.match(o.error, /^proxy: cannot reach the proxy http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED/);
    }
  });

  it('should apply the network policy to the target, never to the proxy, and connect directly to NO_PROXY hosts', async () => {
    const plain = await http('127.0.0.33', (_req, res) => res.end('direct'));
    const p = await proxy({ names: { 'inside.proxy.test': '127.0.0.33', 'private.proxy.test': '10.1.2.3' } });
    const route = new ProxyRoute(undefined, { HTTP_PROXY: p.url, NO_PROXY: 'skip.proxy.test, 127.0.0.0/8' });
    // The proxy is on loopback, which the policy refuses: it is the user's choice, never checked.
    const f = fetcher({ proxy: route, allowNetworks: [], resolve: pinnedResolver({ 'local.proxy.test': '10.9.9.9', 'skip.proxy.test': '127.0.0.33' }, async () => { throw Object.assign(new Error('no'), { code: 'ENOTFOUND' }); }) });
    const through = await f.fetch(`http://inside.proxy.test:${plain.port}/`);
    assert.equal(through.body.toString(), 'direct', through.error);
    // A name that local DNS resolves to a private address is refused before the proxy is asked.
    const local = await f.fetch('http://local.proxy.test/');
    assert.equal(local.errorKind, 'network-refused', local.error);
    // NO_PROXY: direct, and then the policy applies to the address dialled.
    const skipped = await f.fetch(`http://skip.proxy.test:${plain.port}/`);
    assert.equal(skipped.errorKind, 'network-refused', 'connected directly, where loopback is refused');
    const literal = await f.fetch(`http://127.0.0.33:${plain.port}/`);
    assert.equal(literal.errorKind, 'network-refused');
    assert.deepEqual(p.log.map((e) => e.target), [`http://inside.proxy.test:${plain.port}/`]);
  });

  it('should read HTTPS_PROXY, HTTP_PROXY, ALL_PROXY and NO_PROXY as curl does, and refuse proxies it cannot speak', () => {
    const env = { https_proxy: 'http://secure-proxy:3128', HTTP_PROXY: 'plain-proxy:8080', NO_PROXY: '.corp.example, intranet:8443, 10.0.0.0/8, [::1]' };
    const r = new ProxyRoute(undefined, env);
    const via = (u: string) => r.proxyFor(new URL(u))?.authority ?? 'direct';
    assert.equal(via('https://a.example/'), 'secure-proxy:3128');
    assert.equal(via('http://a.example/'), 'plain-proxy:8080');
    assert.equal(via('http://www.corp.example/'), 'direct');
    assert.equal(via('http://corp.example/'), 'direct');
    assert.equal(via('https://intranet:8443/'), 'direct');
    assert.equal(via('https://intranet/'), 'secure-proxy:3128');
    assert.equal(via('http://10.20.30.40/'), 'direct');
    assert.equal(via('http://[::1]:81/'), 'direct');
    assert.equal(via('http://11.0.0.1/'), 'plain-proxy:8080');
    assert.equal(new ProxyRoute('http://flag:1', env).proxyFor(new URL('https://a.example/'))?.authority, 'flag:1', '--proxy wins over the environment');
    assert.equal(new ProxyRoute('http://flag:1', env).proxyFor(new URL('https://x.corp.example/')), undefined, 'NO_PROXY still applies to --proxy');
    assert.equal(new ProxyRoute(undefined, { ALL_PROXY: 'http://all:1', no_proxy: '*' }).active, false);
    assert.throws(() => new ProxyRoute('socks5://127.0.0.1:1080', {}), /--proxy: socks5:\/\/ proxies are not supported/);
    assert.throws(() => new ProxyRoute(undefined, { HTTPS_PROXY: 'http://' }), /HTTPS_PROXY: .* is not a proxy URL/);
  });
});
