import ipaddr from 'ipaddr.js';

/**
 * TRUST_PROXY: a comma-separated list of addresses or CIDR ranges whose X-Forwarded-For is
 * believed. Anything else is rejected at start, so a typo never trusts the whole internet.
 */
export function parseTrustProxy(raw: string | undefined): string[] {
  if (raw === undefined) return [];
  const entries = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const entry of entries) {
    const valid = entry.includes('/') ? ipaddr.isValidCIDR(entry) : ipaddr.isValid(entry);
    if (!valid) throw new Error(`"${entry}" is not an IP address or CIDR range`);
  }
  return entries;
}
