import type { Labelling } from '../salary/index.js';
import type { Db } from '../store/index.js';
import { allHosts, allLicenses, type LicenseRow } from './repo.js';

/**
 * Every recorded licence and mapped host name in memory (a few rows per licensee): read whole
 * at start, on every change announcement and at each poll, so a salary response decides its
 * labelling without a database round trip.
 */
export class LicenseRegistry {
  #licenses = new Map<string, LicenseRow>();
  #labels = new Map<string, Labelling>();
  #hosts = new Map<string, string>();

  constructor(private readonly deps: { db: Db }) {}

  async refresh(): Promise<void> {
    const [licenses, hosts] = await Promise.all([
      allLicenses(this.deps.db),
      allHosts(this.deps.db),
    ]);
    this.#licenses = new Map(licenses.map((l) => [l.accountId, l]));
    this.#labels = new Map(
      licenses
        .filter((l) => l.whiteLabel)
        .map((l) => [l.accountId, { licensee: l.licensee, attribution: l.attribution }]),
    );
    this.#hosts = new Map(hosts.map((h) => [h.host, h.accountId]));
  }

  license(accountId: string): LicenseRow | undefined {
    return this.#licenses.get(accountId);
  }

  /** A white-label account's labelling; null for everyone else (this service's own). */
  readonly labelling = (accountId: string | null): Labelling | null => {
    if (accountId === null || this.#labels.size === 0) return null;
    return this.#labels.get(accountId) ?? null;
  };

  /** The licensee an account's own documents (its OpenAPI document) are titled for, if any. */
  readonly titleOf = (accountId: string): { licensee: string; whiteLabel: boolean } | null => {
    const license = this.#licenses.get(accountId);
    return license === undefined
      ? null
      : { licensee: license.licensee, whiteLabel: license.whiteLabel };
  };

  /** A host name mapped to the account (the first in name order), if any. */
  hostOf(accountId: string): string | undefined {
    let first: string | undefined;
    for (const [host, owner] of this.#hosts)
      if (owner === accountId && (first === undefined || host < first)) first = host;
    return first;
  }

  /** The licence of the account a Host header is mapped to (the port ignored), if any. */
  licenseOfHost(host: string | undefined): LicenseRow | undefined {
    if (host === undefined || this.#hosts.size === 0) return undefined;
    const accountId = this.#hosts.get(normalHost(host));
    return accountId === undefined ? undefined : this.#licenses.get(accountId);
  }
}

/** `Data.Example.com:443` → `data.example.com`. */
export function normalHost(host: string): string {
  return host.trim().toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '');
}
