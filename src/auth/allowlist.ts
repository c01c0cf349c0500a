import ipaddr from 'ipaddr.js';

export const MAX_ALLOWLIST_ENTRIES = 100;

/** Validates allowlist entries (addresses or CIDR ranges, IPv4 or IPv6); returns the problems. */
export function allowlistProblems(entries: readonly string[]): string[] {
  const problems: string[] = [];
  if (entries.length > MAX_ALLOWLIST_ENTRIES)
    problems.push(`at most ${MAX_ALLOWLIST_ENTRIES} entries`);
  for (const entry of entries) {
    if (!isCanonicalEntry(entry))
      problems.push(
        `"${entry}" is not an IP address or CIDR range in standard notation (e.g. 203.0.113.0/24, 2001:db8::/48)`,
      );
  }
  return problems;
}

/**
 * Only the notation everyone reads the same way: dotted-quad IPv4 without leading zeros (so
 * `010.0.0.1` is not silently octal 8.0.0.1, nor `1.2.3` 1.2.0.3), IPv6 without a zone id, and
 * a decimal prefix length without leading zeros within the family's width.
 */
function isCanonicalEntry(entry: string): boolean {
  const [address = '', prefix, ...rest] = entry.split('/');
  if (rest.length > 0) return false;
  const v4 = ipaddr.IPv4.isValidFourPartDecimal(address);
  const v6 = !v4 && !address.includes('%') && address.includes(':') && ipaddr.IPv6.isValid(address);
  if (!v4 && !v6) return false;
  if (prefix === undefined) return true;
  return /^(0|[1-9][0-9]{0,2})$/.test(prefix) && Number(prefix) <= (v4 ? 32 : 128);
}

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** An entry as a range; an IPv4-mapped IPv6 range of at least /96 is the IPv4 range it maps. */
function rangeOf(entry: string): Range {
  let address: ipaddr.IPv4 | ipaddr.IPv6;
  let bits: number;
  if (entry.includes('/')) [address, bits] = ipaddr.parseCIDR(entry);
  else {
    address = ipaddr.parse(entry);
    bits = address.kind() === 'ipv4' ? 32 : 128;
  }
  if (address.kind() === 'ipv6' && bits >= 96) {
    const v6 = address as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) return [v6.toIPv4Address(), bits - 96];
  }
  return [address, bits];
}

/**
 * A compiled allowlist: `matches(address)`. IPv4-mapped IPv6 addresses and entries are IPv4
 * (an IPv4 client of a dual-stack listener matches its IPv4 entry); a mapped address also
 * matches an IPv6 range that contains it.
 */
export class AddressMatcher {
  readonly #ranges: Range[];

  constructor(readonly entries: readonly string[]) {
    this.#ranges = entries.map(rangeOf);
  }

  /**
   * Whether every address of `entry` (an address or CIDR range) is inside one range of this
   * list: a range inside a wider range of the same family. Ranges split across several entries
   * are not merged, which only ever refuses.
   */
  covers(entry: string): boolean {
    const [inner, width] = rangeOf(entry);
    return this.#ranges.some(
      ([range, rangeBits]) =>
        range.kind() === inner.kind() && rangeBits <= width && inner.match(range, rangeBits),
    );
  }

  matches(address: string): boolean {
    if (!ipaddr.isValid(address)) return false;
    const parsed = ipaddr.parse(address);
    const candidates: (ipaddr.IPv4 | ipaddr.IPv6)[] = [parsed];
    if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
      candidates.push((parsed as ipaddr.IPv6).toIPv4Address());
    }
    return this.#ranges.some(([range, bits]) =>
      candidates.some((c) => c.kind() === range.kind() && c.match(range, bits)),
    );
  }
}
