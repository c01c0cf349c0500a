import { jsonColumn, type Queryable } from '../store/index.js';
import type { CustomQuery, ParameterName } from './query.js';

type Time = Date | string;
const iso = (t: Time): string => new Date(t).toISOString();

export interface CustomEndpointRow {
  id: string;
  accountId: string;
  slug: string;
  description: string;
  query: CustomQuery;
  parameters: ParameterName[];
  createdAt: string;
  updatedAt: string;
  deletedAt: string | null;
}

interface DbRow {
  id: string;
  account_id: string;
  slug: string;
  description: string;
  query: CustomQuery | string;
  parameters: ParameterName[] | string;
  created_at: Time;
  updated_at: Time;
  deleted_at: Time | null;
}

const COLUMNS =
  'id, account_id, slug, description, query, parameters, created_at, updated_at, deleted_at';

function toRow(r: DbRow): CustomEndpointRow {
  return {
    id: r.id,
    accountId: r.account_id,
    slug: r.slug,
    description: r.description,
    query: jsonColumn(r.query),
    parameters: jsonColumn(r.parameters),
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
    deletedAt: r.deleted_at === null ? null : iso(r.deleted_at),
  };
}

export async function liveEndpoints(db: Queryable): Promise<CustomEndpointRow[]> {
  const rows = await db.query<DbRow>(
    `SELECT ${COLUMNS} FROM custom_endpoints WHERE deleted_at IS NULL`,
  );
  return rows.map(toRow);
}

/** Rows created, changed or deleted since `since` (deletions included, to forget them). */
export async function endpointsChangedSince(
  db: Queryable,
  since: string,
): Promise<CustomEndpointRow[]> {
  const rows = await db.query<DbRow>(
    `SELECT ${COLUMNS} FROM custom_endpoints WHERE updated_at > $1 ORDER BY updated_at`,
    [since],
  );
  return rows.map(toRow);
}

export async function accountEndpoints(
  db: Queryable,
  accountId: string,
): Promise<CustomEndpointRow[]> {
  const rows = await db.query<DbRow>(
    `SELECT ${COLUMNS} FROM custom_endpoints WHERE account_id = $1 AND deleted_at IS NULL ORDER BY slug`,
    [accountId],
  );
  return rows.map(toRow);
}

export async function findEndpoint(
  db: Queryable,
  accountId: string,
  id: string,
): Promise<CustomEndpointRow | undefined> {
  const rows = await db.query<DbRow>(
    `SELECT ${COLUMNS} FROM custom_endpoints WHERE account_id = $1 AND id = $2 AND deleted_at IS NULL`,
    [accountId, id],
  );
  return rows[0] === undefined ? undefined : toRow(rows[0]);
}

export async function slugTaken(
  db: Queryable,
  accountId: string,
  slug: string,
  exceptId: string | null,
): Promise<boolean> {
  const rows = await db.query(
    `SELECT 1 FROM custom_endpoints
      WHERE account_id = $1 AND slug = $2 AND deleted_at IS NULL AND id <> $3`,
    [accountId, slug, exceptId ?? ''],
  );
  return rows.length > 0;
}

export async function countEndpoints(db: Queryable, accountId: string): Promise<number> {
  const rows = await db.query<{ n: number | string }>(
    'SELECT count(*) AS n FROM custom_endpoints WHERE account_id = $1 AND deleted_at IS NULL',
    [accountId],
  );
  return Number(rows[0]?.n ?? 0);
}

export interface EndpointFields {
  slug: string;
  description: string;
  query: CustomQuery;
  parameters: readonly ParameterName[];
}

export async function insertEndpoint(
  db: Queryable,
  row: EndpointFields & { id: string; accountId: string; at: Date },
): Promise<CustomEndpointRow> {
  const rows = await db.query<DbRow>(
    `INSERT INTO custom_endpoints (id, account_id, slug, description, query, parameters, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING ${COLUMNS}`,
    [
      row.id,
      row.accountId,
      row.slug,
      row.description,
      JSON.stringify(row.query),
      JSON.stringify(row.parameters),
      row.at.toISOString(),
    ],
  );
  return toRow(rows[0]!);
}

export async function updateEndpoint(
  db: Queryable,
  accountId: string,
  id: string,
  fields: EndpointFields,
  at: Date,
): Promise<CustomEndpointRow | undefined> {
  const rows = await db.query<DbRow>(
    `UPDATE custom_endpoints
        SET slug = $3, description = $4, query = $5, parameters = $6, updated_at = $7
      WHERE account_id = $1 AND id = $2 AND deleted_at IS NULL
      RETURNING ${COLUMNS}`,
    [
      accountId,
      id,
      fields.slug,
      fields.description,
      JSON.stringify(fields.query),
      JSON.stringify(fields.parameters),
      at.toISOString(),
    ],
  );
  return rows[0] === undefined ? undefined : toRow(rows[0]);
}

export async function deleteEndpoint(
  db: Queryable,
  accountId: string,
  id: string,
  at: Date,
): Promise<CustomEndpointRow | undefined> {
  const rows = await db.query<DbRow>(
    `UPDATE custom_endpoints SET deleted_at = $3, updated_at = $3
      WHERE account_id = $1 AND id = $2 AND deleted_at IS NULL
      RETURNING ${COLUMNS}`,
    [accountId, id, at.toISOString()],
  );
  return rows[0] === undefined ? undefined : toRow(rows[0]);
}
