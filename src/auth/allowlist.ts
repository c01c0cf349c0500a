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
