import ipaddr from 'ipaddr.js';

export const MAX_ALLOWLIST_ENTRIES = 100;

/** Validates allowlist entries (addresses or CIDR ranges, IPv4 or IPv6); returns the problems. */
export function allowlistProblems(entries: readonly string[]): string[] {
  const problems: string[] = [];
  if (entries.length > MAX_ALLOWLIST_ENTRIES)
    problems.push(`at most ${MAX_ALLOWLIST_ENTRIES} entries`);
  for (const entry of entries) {
    const ok = entry.includes('/') ? ipaddr.isValidCIDR(entry) : ipaddr.isValid(entry);
    if (!ok) problems.push(`"${entry}" is not an IP address or CIDR range`);
  }
  return problems;
}

/** A compiled allowlist: `matches(address)`; IPv4-mapped IPv6 addresses match IPv4 entries. */
export class AddressMatcher {
  readonly #ranges: [ipaddr.IPv4 | ipaddr.IPv6, number][];

  constructor(readonly entries: readonly string[]) {
    this.#ranges = entries.map((entry) => {
      if (entry.includes('/')) return ipaddr.parseCIDR(entry);
      const address = ipaddr.parse(entry);
      return [address, address.kind() === 'ipv4' ? 32 : 128];
    });
  }

  /**
   * Whether every address of `entry` (an address or CIDR range) is inside one range of this
   * list: a range inside a wider range of the same family. Ranges split across several entries
   * are not merged, which only ever refuses.
   */
  covers(entry: string): boolean {
    const [address, bits] = entry.includes('/')
      ? ipaddr.parseCIDR(entry)
      : ((a) => [a, a.kind() === 'ipv4' ? 32 : 128] as const)(ipaddr.parse(entry));
    const [family, inner, width] =
      address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96
        ? ['ipv4', (address as ipaddr.IPv6).toIPv4Address(), bits - 96]
        : [address.kind(), address, bits];
    return this.#ranges.some(
      ([range, rangeBits]) =>
        range.kind() === family && rangeBits <= width && inner.match(range, rangeBits),
    );
  }

  matches(address: string): boolean {
    if (!ipaddr.isValid(address)) return false;
    let parsed = ipaddr.parse(address);
    if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
      parsed = (parsed as ipaddr.IPv6).toIPv4Address();
    }
    return this.#ranges.some(
      ([range, bits]) => range.kind() === parsed.kind() && parsed.match(range, bits),
    );
  }
}
