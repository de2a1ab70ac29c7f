// Certificates as the web has them. Browsers refuse a bad certificate; archive and search crawlers
// (Heritrix, StormCrawler, Nutch) fetch the page and note the problem. The user picks:
//   on      refuse: the fetch fails with an error 'tls: <why>' (self-signed, expired, name mismatch, …)
//   record  fetch anyway and say why the certificate would have been refused (fetches.tls_problem)
//   off     fetch anyway, say nothing
// Extra trusted roots (--ca-file) are added to Node's bundled ones, never in their place.
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createSecureContext, rootCertificates, type SecureContext } from 'node:tls';

export const TLS_VERIFY_MODES = ['on', 'record', 'off'] as const;
export type TlsVerify = (typeof TLS_VERIFY_MODES)[number];

export interface TlsOptions {
  verify: TlsVerify;
  /** PEM text of extra root certificates ('' for none). */
  ca: string;
}

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/**
 * The certificates of a PEM text, each checked. @throws Error saying which block is not a
 * certificate, or that there is none: a CA file that silently adds nothing would look like it worked.
 */
export function parseCaPem(text: string, source = 'the CA file'): string[] {
  const blocks = text.match(PEM_BLOCK) ?? [];
  if (blocks.length === 0) throw new Error(`${source} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  blocks.forEach((pem, i) => {
    try {
      new X509Certificate(pem);
    } catch (err) {
      throw new Error(`${source}: certificate ${i + 1} of ${blocks.length} cannot be read (${(err as Error).message})`);
    }
  });
  return blocks;
}

/**
 * What tls.connect needs, made once: a secure context built per connection would parse the ~150
 * bundled roots again for every socket. NODE_EXTRA_CA_CERTS stays trusted next to --ca-file.
 */
export function tlsConnectOptions(o: TlsOptions): { secureContext: SecureContext; rejectUnauthorized: boolean } {
  const extra = o.ca ? parseCaPem(o.ca) : [];
  const fromEnv = process.env.NODE_EXTRA_CA_CERTS ? readEnvCerts(process.env.NODE_EXTRA_CA_CERTS) : [];
  const secureContext = extra.length === 0 ? createSecureContext() : createSecureContext({ ca: [...rootCertificates, ...fromEnv, ...extra] });
  return { secureContext, rejectUnauthorized: o.verify === 'on' };
}

function readEnvCerts(path: string): string[] {
  try {
    return parseCaPem(readFileSync(path, 'utf8'), `NODE_EXTRA_CA_CERTS (${path})`);
  } catch {
    return []; // Node itself warns about an unreadable NODE_EXTRA_CA_CERTS at startup
  }
}

const WHY: Record<string, string> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'self-signed',
  CERT_HAS_EXPIRED: 'expired',
  CERT_NOT_YET_VALID: 'not-yet-valid',
  ERR_TLS_CERT_ALTNAME_INVALID: 'name-mismatch',
  HOSTNAME_MISMATCH: 'name-mismatch',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'untrusted-issuer',
  UNABLE_TO_GET_ISSUER_CERT: 'untrusted-issuer',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'untrusted-issuer',
  CERT_UNTRUSTED: 'untrusted-issuer',
  CERT_REVOKED: 'revoked',
  CERT_SIGNATURE_FAILURE: 'bad-signature',
};

const HINT: Record<string, string> = {
  'self-signed': 'the certificate is self-signed',
  expired: 'the certificate has expired',
  'not-yet-valid': 'the certificate is not valid yet',
  'name-mismatch': 'the certificate is not for this host name',
  'untrusted-issuer': 'the certificate is not signed by a trusted CA (--ca-file adds roots)',
  revoked: 'the certificate was revoked',
  'bad-signature': 'the certificate\'s signature does not verify',
};

/** True for Node's codes of a certificate that did not verify (as opposed to a failed handshake). */
export function isCertificateError(code: string): boolean {
  return code in WHY || /^(CERT_|UNABLE_TO_|ERR_TLS_CERT_)/.test(code);
}

/** 'expired: the certificate has expired (CERT_HAS_EXPIRED)': a short stable word first, then why. */
export function describeCertificateProblem(code: string): string {
  const word = WHY[code] ?? code.toLowerCase().replace(/_/g, '-');
  return `${word}: ${HINT[word] ?? 'the certificate did not verify'} (${code})`;
}

/** The options tls.connect takes from tlsConnectOptions. */
export type TargetTlsOptions = ReturnType<typeof tlsConnectOptions>;
