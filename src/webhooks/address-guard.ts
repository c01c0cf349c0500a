import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Whether an address may be a webhook target: only globally routed unicast. Refused:
 * loopback, private, link-local, unique-local, carrier-grade NAT, multicast, broadcast,
 * unspecified, documentation and other reserved ranges, and every address that embeds an
 * IPv4 address (IPv4-mapped, NAT64, 6to4, Teredo), which could smuggle a private one.
 */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

export function addressRefusal(address: string): string | null {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
  const parsed = ipaddr.parse(address);
  const range = parsed.range();
  if (range !== 'unicast') return `${address} is a ${range} address`;
  // ipaddr.js calls the deprecated IPv4-compatible form (::127.0.0.1, written ::7f00:1) and the
  // rest of ::/8 unicast; only 2000::/3 is allocated for global unicast, so nothing else passes.
  if (parsed.kind() === 'ipv6' && !parsed.match(GLOBAL_UNICAST_V6))
    return `${address} is outside the IPv6 global unicast range 2000::/3`;
  return null;
}

export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

/**
 * The checks of a webhook URL that need no network: https (http too when private targets are
 * allowed), no credentials, a host, and no refused address or local name as the host. The
 * address actually connected to is checked again at send time (the sender's lookup).
 */
export function checkTargetUrl(raw: string, allowPrivate: boolean): UrlCheck {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'not an absolute URL' };
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) {
    return {
      ok: false,
      reason: allowPrivate ? 'the scheme must be https or http' : 'the scheme must be https',
    };
  }
  if (url.username !== '' || url.password !== '') {
    return { ok: false, reason: 'credentials in the URL are not allowed' };
  }
  if (url.hash !== '') return { ok: false, reason: 'a fragment (#…) is not allowed' };
  const refusal = targetHostRefusal(url.hostname, allowPrivate);
  return refusal === null ? { ok: true, url } : { ok: false, reason: refusal };
}

/**
 * Why an outbound host (a name or an address, IPv6 with or without brackets) is refused without
 * looking it up, or null: a refused address, or a name that can only be local. The address
 * actually connected to is checked again when connecting.
 */
export function targetHostRefusal(hostname: string, allowPrivate: boolean): string | null {
  // A fully qualified name may end in a dot (`localhost.`): the same host as without it.
  let host = hostname
    .replace(/^\[(.*)\]$/, '$1')
    .toLowerCase()
    .replace(/\.+$/, '');
  if (host === '') return 'the URL has no host';
  if (allowPrivate) return null;
  if (isIP(host) === 0) {
    // Read as a resolver reads it: the WHATWG host parser turns IPv4 shorthands (127.1,
    // 0177.0.0.1, 0x7f000001), which getaddrinfo also accepts, into the address they mean.
    try {
      host = new URL(`http://${host}`).hostname.replace(/\.+$/, '');
    } catch {
      return `${hostname} is not a valid host name`;
    }
    host = host.replace(/^\[(.*)\]$/, '$1');
  }
  if (isIP(host) !== 0) {
    const refusal = addressRefusal(host);
    return refusal === null ? null : `${refusal}; only public addresses are allowed`;
  }
  if (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host.endsWith('.local') ||
    host.endsWith('.internal') ||
    host.endsWith('.localdomain') ||
    host.endsWith('.home.arpa') ||
    !host.includes('.')
  ) {
    return `${host} is a local name; only public hosts are allowed`;
  }
  return null;
}
