// TLS as the web has it: certificates that verify, expire, sign themselves or name another host;
// --tls-verify on, record and off; the connect-time address pin under TLS; a handshake that never ends.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fetcherTestKit } from './testing/test-kit.js';
import { pinnedResolver } from './dns-cache.js';
import { parseCaPem } from './tls-policy.js';
import { testCertificates } from '../test-web/tls-certs.js';

const certs = testCertificates({ names: ['good.tls.test', 'other.tls.test'], expiredName: 'expired.tls.test', selfSignedName: 'self.tls.test' });
const { fetcher, https, raw } = fetcherTestKit();

async function web() {
  const page = (label: string) => (_req: unknown, res: import('node:http').ServerResponse) => res.end(`<p>${label}</p>`);
  const good = await https('127.0.0.21', certs.good, page('good'));
  const expired = await https('127.0.0.22', certs.expired, page('expired'));
  const self = await https('127.0.0.23', certs.selfSigned, page('self'));
  const wrong = await https('127.0.0.24', certs.wrongName, page('wrong'));
  const resolve = pinnedResolver({
    'good.tls.test': '127.0.0.21', 'expired.tls.test': '127.0.0.22', 'self.tls.test': '127.0.0.23', 'wrong.tls.test': '127.0.0.24',
  });
  const url = (name: string, s: { port: number }, path = '/') => `https://${name}:${s.port}${path}`;
  return { good, expired, self, wrong, resolve, url };
}

describe('TLS', () => {
  it('should fetch over TLS with a CA given as --ca-file, and refuse each bad certificate with a tls: error saying why', async () => {
    const w = await web();
    const f = fetcher({ resolve: w.resolve, tls: { verify: 'on', ca: certs.caPem } });
    const ok = await f.fetch(w.url('good.tls.test', w.good));
    assert.equal(ok.error, '');
    assert.equal(ok.body.toString(), '<p>good</p>');
    assert.equal(ok.tlsProblem, '');
    const cases: [string, { port: number }, RegExp][] = [
      ['expired.tls.test', w.expired, /^tls: expired: .*CERT_HAS_EXPIRED/],
      ['self.tls.test', w.self, /^tls: self-signed: .*DEPTH_ZERO_SELF_SIGNED_CERT/],
      ['wrong.tls.test', w.wrong, /^tls: name-mismatch: .*ERR_TLS_CERT_ALTNAME_INVALID/],
    ];
    for (const [name, server, why] of cases) {
      const o = await f.fetch(w.url(name, server));
      assert.equal(o.status, 0, name);
      assert.equal(o.errorKind, 'tls', name);
      assert.match(o.error, why);
    }
    // Without the test CA, the good certificate's issuer is unknown.
    const plain = await fetcher({ resolve: w.resolve }).fetch(w.url('good.tls.test', w.good));
    assert.match(plain.error, /^tls: untrusted-issuer: .*--ca-file/);
  });

  it('should fetch anyway and say why with --tls-verify record, and say nothing with off', async () => {
    const w = await web();
    const record = fetcher({ resolve: w.resolve, tls: { verify: 'record', ca: certs.caPem } });
    const off = fetcher({ resolve: w.resolve, tls: { verify: 'off', ca: '' } });
    const expected: [string, { port: number }, RegExp][] = [
      ['good.tls.test', w.good, /^$/],
      ['expired.tls.test', w.expired, /^expired: /],
      ['self.tls.test', w.self, /^self-signed: /],
      ['wrong.tls.test', w.wrong, /^name-mismatch: /],
    ];
    for (const [name, server, problem] of expected) {
      for (let i = 0; i < 2; i++) { // a kept-alive socket tells the same as a new one
        const o = await record.fetch(w.url(name, server, `/${i}`));
        assert.equal(o.status, 200, `${name}: ${o.error}`);
        assert.match(o.tlsProblem, problem, name);
      }
      const quiet = await off.fetch(w.url(name, server));
      assert.equal(quiet.status, 200, name);
      assert.equal(quiet.tlsProblem, '', name);
    }
  });

  it('should connect to the pinned address with the URL\'s name in SNI and the certificate check', async () => {
    const w = await web();
    // DNS says 127.0.0.24 (the wrong-name server); the pin sends the request to 127.0.0.21.
    const f = fetcher({ resolve: pinnedResolver({ 'good.tls.test': '127.0.0.24' }), tls: { verify: 'on', ca: certs.caPem } });
    const pinned = await f.fetch(w.url('good.tls.test', w.good), { address: '127.0.0.21' });
    assert.equal(pinned.error, '');
    assert.equal(pinned.remoteAddress, '127.0.0.21');
    const unpinned = await f.fetch(w.url('good.tls.test', w.wrong));
    assert.match(unpinned.error, /^tls: name-mismatch/, 'the DNS answer leads to a server whose certificate names another host');
  });

  it('should bound a TLS server that accepts the connection and never answers the handshake by the connect timeout', async () => {
    const silent = await raw('127.0.0.25', () => {});
    const f = fetcher({ resolve: pinnedResolver({ 'stall.tls.test': '127.0.0.25' }), connectTimeoutMs: 300, totalTimeoutMs: 2000 });
    const t0 = performance.now();
    const o = await f.fetch(`https://stall.tls.test:${silent.port}/`);
    assert.equal(o.errorKind, 'timeout', o.error);
    assert.match(o.error, /TLS handshake/);
    assert.ok(performance.now() - t0 < 1500, `took ${performance.now() - t0} ms`);
  });

  it('should refuse a CA file without a certificate in it', () => {
    assert.throws(() => parseCaPem('not a certificate'), /no PEM certificate/);
    assert.throws(() => parseCaPem('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n'), /certificate 1 of 1 cannot be read/);
    assert.equal(parseCaPem(certs.caPem + certs.good.cert).length, 2);
  });
});
