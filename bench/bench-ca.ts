// A certificate authority made at bench time with the openssl CLI, and a server certificate it signs
// for every address of the bench web: the HTTPS variant of the bench serves with it; crawlstream
// trusts it through --ca-file, Crawlee through NODE_EXTRA_CA_CERTS (no crawler is told to skip verification). ECDSA P-256, as most
// of the web serves; valid two days, never written outside the bench's scratch directory.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface BenchCertificates {
  /** The CA certificate (PEM): what a crawler must trust. */
  caFile: string;
  key: Buffer;
  cert: Buffer;
}

function openssl(args: string[], cwd: string): void {
  try {
    execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (err) {
    const e = err as { stderr?: Buffer; message: string };
    throw new Error(`openssl ${args[0]} failed (the HTTPS bench needs the openssl CLI): ${e.stderr?.toString().trim() || e.message}`);
  }
}

/** A fresh CA in `dir` and a certificate for the IP addresses `addresses`, signed by it. */
export function makeBenchCertificates(dir: string, addresses: readonly string[]): BenchCertificates {
  mkdirSync(dir, { recursive: true });
  const curve = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(['req', '-x509', ...curve, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=crawlstream bench CA',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'], dir);
  openssl(['req', ...curve, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=crawlstream bench web'], dir);
  writeFileSync(join(dir, 'server.ext'), [
    'basicConstraints=CA:FALSE', 'keyUsage=critical,digitalSignature', 'extendedKeyUsage=serverAuth',
    `subjectAltName=${addresses.map((a) => `IP:${a}`).join(',')}`, '',
  ].join('\n'));
  openssl(['x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem',
    '-days', '2', '-extfile', 'server.ext'], dir);
  return { caFile: join(dir, 'ca.pem'), key: readFileSync(join(dir, 'server.key')), cert: readFileSync(join(dir, 'server.pem')) };
}
