// The registrable domain ("eTLD+1") of a host, from the Public Suffix List bundled in tldts (no
// download at run time; a tldts upgrade brings a newer list).
//
// - The PSL's private section counts (allowPrivateDomains): alice.github.io and bob.github.io are
//   different sites, as browsers treat them, not one "github.io" domain.
// - A name whose last label is not in the list (site.test, host.internal) falls under the PSL's
//   default rule "*": the last label is the suffix, so www.site.test belongs to site.test.
// - Hosts without a registrable domain are their own domain, matched exactly: IP literals (IPv4 and
//   IPv6; 127.0.0.1 and 127.0.0.2 are different domains), single labels such as localhost, and bare
//   public suffixes (co.uk, test). tldts says a.localhost is registrable (localhost is a suffix by the
//   default rule), so a.localhost and b.localhost are different domains.
// - Scope is decided on names only: a name pinned to a loopback address in tests is judged by its name.
import { getDomain } from 'tldts';

const OPTIONS = { allowPrivateDomains: true } as const;

/** The hostname of a hostKey: port removed, IPv6 brackets kept. */
export function hostnameOf(host: string): string {
  const h = host.toLowerCase();
  if (h.startsWith('[')) {
    const close = h.indexOf(']');
    return close < 0 ? h : h.slice(0, close + 1);
  }
  const colon = h.lastIndexOf(':');
  return colon < 0 ? h : h.slice(0, colon);
}

/** Registrable domain of a host or hostKey (port ignored); the hostname itself when there is none. */
export function registrableDomain(host: string): string {
  const hostname = hostnameOf(host);
  return getDomain(hostname, OPTIONS) ?? hostname;
}
