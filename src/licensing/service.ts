import { recordAudit } from '../audit/index.js';
import type { Clock } from '../lib/clock.js';
import type { Db } from '../store/index.js';
import type { LicenseRegistry } from './registry.js';
import { normalHost } from './registry.js';
import * as repo from './repo.js';

export interface LicenseInput {
  licensee: string;
  attribution: string;
  whiteLabel: boolean;
  permittedUse: string | null;
  termEnd: string | null;
}

/** A licence as the API shows it. */
export interface LicenseView {
  licensee: string;
  attribution: string;
  white_label: boolean;
  permitted_use: string | null;
  term_end: string | null;
  /** False after the term's last day. */
  active: boolean;
  recorded_at: string;
  updated_at: string;
}

export function licenseView(row: repo.LicenseRow, now: number): LicenseView {
  const today = new Date(now).toISOString().slice(0, 10);
  return {
    licensee: row.licensee,
    attribution: row.attribution,
    white_label: row.whiteLabel,
    permitted_use: row.permittedUse,
    term_end: row.termEnd,
    active: row.termEnd === null || today <= row.termEnd,
    recorded_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

const HOST =
  /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$/;

/** What is wrong with a licence (empty when it is valid). */
export function licenseProblems(input: LicenseInput): string[] {
  const problems: string[] = [];
  if (input.licensee.trim() === '' || input.licensee.length > 200)
    problems.push('the licensee is a name of 1 to 200 characters');
  if (input.attribution.trim() === '' || input.attribution.length > 500)
    problems.push('the attribution is a text of 1 to 500 characters');
  if (input.permittedUse !== null && input.permittedUse.length > 2000)
    problems.push('the permitted use is at most 2000 characters');
  if (
    input.termEnd !== null &&
    (!/^\d{4}-\d{2}-\d{2}$/.test(input.termEnd) ||
      Number.isNaN(Date.parse(`${input.termEnd}T00:00:00Z`)) ||
      new Date(`${input.termEnd}T00:00:00Z`).toISOString().slice(0, 10) !== input.termEnd)
  )
    problems.push('the term end is a date, YYYY-MM-DD');
  return problems;
}

/** The operator's licence and host-name records; each audited and announced. */
export function createLicenseService(deps: {
  db: Db;
  clock: Clock;
  registry: LicenseRegistry;
  announce?: () => Promise<void> | void;
}) {
  const { db, clock, registry } = deps;
  const changed = async (): Promise<void> => {
    await registry.refresh();
    await deps.announce?.();
  };
  return {
    async record(accountId: string, input: LicenseInput): Promise<repo.LicenseRow> {
      const at = new Date(clock.now());
      const row = await db.transaction(async (tx) => {
        const saved = await repo.upsertLicense(tx, { accountId, ...input }, at);
        await recordAudit(tx, {
          accountId,
          actor: 'operator',
          action: 'licenses.record',
          data: { ...input },
          at,
        });
        return saved;
      });
      await changed();
      return row;
    },

    async remove(accountId: string): Promise<boolean> {
      const at = new Date(clock.now());
      const removed = await db.transaction(async (tx) => {
        const gone = await repo.deleteLicense(tx, accountId);
        if (gone)
          await recordAudit(tx, { accountId, actor: 'operator', action: 'licenses.remove', at });
        return gone;
      });
      await changed();
      return removed;
    },

    /** Maps a host name to the account (`null`: unmaps it); returns the normalised name. */
    async mapHost(host: string, accountId: string | null, ownerId: string): Promise<string> {
      const name = normalHost(host);
      if (!HOST.test(name)) throw new Error(`${host} is not a host name`);
      const at = new Date(clock.now());
      await db.transaction(async (tx) => {
        if (accountId === null) await repo.unmapHost(tx, name);
        else await repo.mapHost(tx, name, accountId, at);
        await recordAudit(tx, {
          accountId: ownerId,
          actor: 'operator',
          action: accountId === null ? 'licenses.unmap_host' : 'licenses.map_host',
          data: { host: name },
          at,
        });
      });
      await changed();
      return name;
    },
  };
}
export type LicenseService = ReturnType<typeof createLicenseService>;
