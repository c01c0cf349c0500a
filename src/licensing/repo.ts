import type { Queryable } from '../store/index.js';

type Time = Date | string;

/** A data licence recorded with an account's contract. */
export interface LicenseRow {
  accountId: string;
  licensee: string;
  attribution: string;
  whiteLabel: boolean;
  permittedUse: string | null;
  /** `YYYY-MM-DD`, the last day of the term; null: open-ended. */
  termEnd: string | null;
  createdAt: string;
  updatedAt: string;
}

interface DbRow {
  account_id: string;
  licensee: string;
  attribution: string;
  white_label: boolean;
  permitted_use: string | null;
  term_end: Time | null;
  created_at: Time;
  updated_at: Time;
}

const COLUMNS =
  'account_id, licensee, attribution, white_label, permitted_use, term_end::text AS term_end, created_at, updated_at';

function toRow(r: DbRow): LicenseRow {
  return {
    accountId: r.account_id,
    licensee: r.licensee,
    attribution: r.attribution,
    whiteLabel: r.white_label,
    permittedUse: r.permitted_use,
    termEnd: r.term_end === null ? null : String(r.term_end).slice(0, 10),
    createdAt: new Date(r.created_at).toISOString(),
    updatedAt: new Date(r.updated_at).toISOString(),
  };
}

export async function allLicenses(db: Queryable): Promise<LicenseRow[]> {
  return (await db.query<DbRow>(`SELECT ${COLUMNS} FROM account_licenses`)).map(toRow);
}

export async function findLicense(
  db: Queryable,
  accountId: string,
): Promise<LicenseRow | undefined> {
  const rows = await db.query<DbRow>(
    `SELECT ${COLUMNS} FROM account_licenses WHERE account_id = $1`,
    [accountId],
  );
  return rows[0] === undefined ? undefined : toRow(rows[0]);
}

export async function upsertLicense(
  db: Queryable,
  license: Omit<LicenseRow, 'createdAt' | 'updatedAt'>,
  at: Date,
): Promise<LicenseRow> {
  const rows = await db.query<DbRow>(
    `INSERT INTO account_licenses
       (account_id, licensee, attribution, white_label, permitted_use, term_end, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
     ON CONFLICT (account_id) DO UPDATE SET licensee = $2, attribution = $3, white_label = $4,
       permitted_use = $5, term_end = $6, updated_at = $7
     RETURNING ${COLUMNS}`,
    [
      license.accountId,
      license.licensee,
      license.attribution,
      license.whiteLabel,
      license.permittedUse,
      license.termEnd,
      at.toISOString(),
    ],
  );
  return toRow(rows[0]!);
}

export async function deleteLicense(db: Queryable, accountId: string): Promise<boolean> {
  const rows = await db.query('DELETE FROM account_licenses WHERE account_id = $1 RETURNING 1', [
    accountId,
  ]);
  return rows.length > 0;
}

export interface HostRow {
  host: string;
  accountId: string;
}

export async function allHosts(db: Queryable): Promise<HostRow[]> {
  const rows = await db.query<{ host: string; account_id: string }>(
    'SELECT host, account_id FROM account_hosts',
  );
  return rows.map((r) => ({ host: r.host, accountId: r.account_id }));
}

export async function mapHost(db: Queryable, host: string, accountId: string, at: Date) {
  await db.query(
    `INSERT INTO account_hosts (host, account_id, created_at) VALUES ($1, $2, $3)
     ON CONFLICT (host) DO UPDATE SET account_id = $2`,
    [host, accountId, at.toISOString()],
  );
}

export async function unmapHost(db: Queryable, host: string): Promise<boolean> {
  return (
    (await db.query('DELETE FROM account_hosts WHERE host = $1 RETURNING 1', [host])).length > 0
  );
}
