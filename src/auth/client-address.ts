import { isIPv4 } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * The limit bucket of an anonymous client: its IPv4 address, or the /64 network of an IPv6
 * address (one subscriber usually holds a whole /64). IPv4-mapped IPv6 counts as IPv4.
 */
export function addressBucket(address: string): string {
  if (isIPv4(address)) return `addr:${address}`;
  if (!ipaddr.isValid(address)) return `addr:${address}`;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  if (parsed.kind() === 'ipv4') return `addr:${parsed.toString()}`;
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16));
  return `addr:${parts.join(':')}::/64`;
}
