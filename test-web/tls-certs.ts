// Certificates for the TLS test web, made at test time with the openssl CLI (Node cannot make
// certificates itself): a throwaway CA, a certificate it signs for the good names, one it signs for
// another name (a name mismatch), one that expired (openssl ca -startdate/-enddate), and one that
// signs itself. EC P-256 keys: fast to make. scripts/dev-services.sh installs openssl when missing.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface KeyPair { key: string; cert: string }

export interface TestCertificates {
  /** The CA's certificate (PEM): what --ca-file is given. */
  caPem: string;
  caFile: string;
  /** Signed by the CA for `names`. */
  good: KeyPair;
  /** Signed by the CA, but for `other.invalid`, not the host it is served on. */
  wrongName: KeyPair;
  /** Signed by the CA for `expiredName`, valid only in January 2020. */
  expired: KeyPair;
  /** Signed by its own key, for `selfSignedName`. */
  selfSigned: KeyPair;
}

const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
const LEAF_EXTENSIONS = 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n';

function openssl(dir: string, args: string[]): void {
  try {
    execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: Buffer };
    if (e.code === 'ENOENT') throw new Error('the TLS tests need the openssl command: run scripts/dev-services.sh up (it installs it) or apt-get install openssl');
    throw new Error(`openssl ${args[0]} failed: ${e.stderr?.toString() ?? e.message}`);
  }
}

const made = new Map<string, TestCertificates>();

/** Made once per process and set of names, in a temporary directory. */
export function testCertificates(o: { names: string[]; expiredName: string; selfSignedName: string }): TestCertificates {
  const id = JSON.stringify(o);
  const known = made.get(id);
  if (known) return known;
  const dir = mkdtempSync(join(tmpdir(), 'crawlstream-tls-'));
  const read = (name: string) => readFileSync(join(dir, name), 'utf8');
  openssl(dir, ['req', '-x509', ...EC, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '3', '-subj', '/CN=crawlstream test CA',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
  const leaf = (name: string, sans: string[], sign: (csr: string, ext: string, out: string) => void): KeyPair => {
    writeFileSync(join(dir, `${name}.ext`), `${LEAF_EXTENSIONS}subjectAltName=${sans.map((n) => `DNS:${n}`).join(',')}\n`);
    openssl(dir, ['req', '-new', ...EC, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${sans[0]}`]);
    sign(`${name}.csr`, `${name}.ext`, `${name}.crt`);
    return { key: read(`${name}.key`), cert: read(`${name}.crt`) };
  };
  const byCa = (csr: string, ext: string, out: string) =>
    openssl(dir, ['x509', '-req', '-in', csr, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '3', '-extfile', ext, '-out', out]);
  // `openssl x509` cannot date a certificate in the past; `openssl ca` can, with a minimal database.
  writeFileSync(join(dir, 'index.txt'), '');
  writeFileSync(join(dir, 'serial'), '1000\n');
  writeFileSync(join(dir, 'ca.cnf'), `[ca]\ndefault_ca=test\n[test]\ndir=.\ndatabase=index.txt\nnew_certs_dir=.\nserial=serial\n` +
    'default_md=sha256\npolicy=anything\nunique_subject=no\n[anything]\ncommonName=supplied\n');
  const pastDates = (csr: string, ext: string, out: string) =>
    openssl(dir, ['ca', '-batch', '-config', 'ca.cnf', '-cert', 'ca.crt', '-keyfile', 'ca.key', '-in', csr, '-out', out, '-notext',
      '-startdate', '20200101000000Z', '-enddate', '20200201000000Z', '-extfile', ext]);
  const good = leaf('good', o.names, byCa);
  const wrongName = leaf('wrong', ['other.invalid'], byCa);
  const expired = leaf('expired', [o.expiredName], pastDates);
  openssl(dir, ['req', '-x509', ...EC, '-keyout', 'self.key', '-out', 'self.crt', '-days', '3', '-subj', `/CN=${o.selfSignedName}`,
    '-addext', `subjectAltName=DNS:${o.selfSignedName}`]);
  const certs = { caPem: read('ca.crt'), caFile: join(dir, 'ca.crt'), good, wrongName, expired, selfSigned: { key: read('self.key'), cert: read('self.crt') } };
  made.set(id, certs);
  return certs;
}
