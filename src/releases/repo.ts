import type { Queryable } from '../store/index.js';
import type { ReleaseHeader, ReleaseRecord, RecordBasis } from './format.js';

export interface ReleaseRow {
  id: number;
  version: string;
  createdAt: string;
  loadedAt: string;
  firstYear: number;
  currentYear: number;
  lastPublishedYear: number;
  recordCount: number;
  checksum: string;
  header: ReleaseHeader;
  /** When the operator retired it (its records are gone); null while kept. */
  retiredAt: string | null;
}

interface ReleaseDbRow {
  id: number | string;
  version: string;
  created_at: Date | string;
  loaded_at: Date | string;
  first_year: number;
  current_year: number;
  last_published_year: number;
  record_count: number;
  checksum: string;
  header: ReleaseHeader | string;
  retired_at: Date | string | null;
}

const RELEASE_COLUMNS =
  'id, version, created_at, loaded_at, first_year, current_year, last_published_year, record_count, checksum, header, retired_at';

function toRelease(row: ReleaseDbRow): ReleaseRow {
  return {
    id: Number(row.id),
    version: row.version,
    createdAt: new Date(row.created_at).toISOString(),
    loadedAt: new Date(row.loaded_at).toISOString(),
    firstYear: row.first_year,
    currentYear: row.current_year,
    lastPublishedYear: row.last_published_year,
    recordCount: row.record_count,
    checksum: row.checksum,
    header: typeof row.header === 'string' ? (JSON.parse(row.header) as ReleaseHeader) : row.header,
    retiredAt: row.retired_at === null ? null : new Date(row.retired_at).toISOString(),
  };
}

export async function findActiveRelease(db: Queryable): Promise<ReleaseRow | undefined> {
  const rows = await db.query<ReleaseDbRow>(
    `SELECT ${RELEASE_COLUMNS} FROM data_releases WHERE retired_at IS NULL ORDER BY id DESC LIMIT 1`,
  );
  return rows[0] === undefined ? undefined : toRelease(rows[0]);
}

export async function findActiveReleaseId(db: Queryable): Promise<number | undefined> {
  const rows = await db.query<{ id: number | string }>(
    'SELECT id FROM data_releases WHERE retired_at IS NULL ORDER BY id DESC LIMIT 1',
  );
  return rows[0] === undefined ? undefined : Number(rows[0].id);
}

export async function findReleaseByVersion(
  db: Queryable,
  version: string,
): Promise<ReleaseRow | undefined> {
  const rows = await db.query<ReleaseDbRow>(
    `SELECT ${RELEASE_COLUMNS} FROM data_releases WHERE version = $1`,
    [version],
  );
  return rows[0] === undefined ? undefined : toRelease(rows[0]);
}

/** The kept (not retired) releases, newest loaded first: the first is the active one. */
export async function listKeptReleases(db: Queryable): Promise<ReleaseRow[]> {
  const rows = await db.query<ReleaseDbRow>(
    `SELECT ${RELEASE_COLUMNS} FROM data_releases WHERE retired_at IS NULL ORDER BY id DESC`,
  );
  return rows.map(toRelease);
}

export async function listKeptReleaseIds(db: Queryable): Promise<number[]> {
  const rows = await db.query<{ id: number | string }>(
    'SELECT id FROM data_releases WHERE retired_at IS NULL ORDER BY id DESC',
  );
  return rows.map((r) => Number(r.id));
}

/** Marks a release retired and deletes its records. */
export async function retireRelease(db: Queryable, id: number, at: Date): Promise<void> {
  await db.query('DELETE FROM salary_records WHERE release_id = $1', [id]);
  await db.query('UPDATE data_releases SET retired_at = $2 WHERE id = $1', [id, at.toISOString()]);
}

export async function insertRelease(
  db: Queryable,
  header: ReleaseHeader,
  checksum: string,
  loadedAt: Date,
): Promise<ReleaseRow> {
  const rows = await db.query<ReleaseDbRow>(
    `INSERT INTO data_releases
       (version, format, created_at, loaded_at, first_year, current_year, last_published_year,
        record_count, checksum, header)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
     RETURNING ${RELEASE_COLUMNS}`,
    [
      header.version,
      header.format,
      header.created_at,
      loadedAt.toISOString(),
      header.first_year,
      header.current_year,
      header.last_published_year,
      header.record_count,
      checksum,
      JSON.stringify(header),
    ],
  );
  const row = rows[0];
  if (row === undefined) throw new Error('INSERT … RETURNING returned no row');
  return toRelease(row);
}

const RECORD_COLUMNS = [
  'country',
  'job',
  'level',
  'year',
  'basis',
  'confidence',
  'confidence_note',
  'p10',
  'p25',
  'median',
  'p75',
  'p90',
  'mean',
  'local_currency',
  'fx_rate',
] as const;
const RECORD_TYPES = ['text', 'text', 'text', 'int', 'text', 'text', 'text', 'int', 'int', 'int', 'int', 'int', 'int', 'text', 'float8'];
// Smaller statements keep the embedded database's WebAssembly memory, which never shrinks,
// from growing for the load: 1,000 records a statement left ~60 MiB less resident than 5,000.
const BATCH = 1000;

/** Inserts records column-wise through unnest: one statement per 1,000 records. */
export async function insertRecords(
  db: Queryable,
  releaseId: number,
  records: readonly ReleaseRecord[],
): Promise<void> {
  const unnest = RECORD_TYPES.map((type, i) => `$${i + 2}::${type}[]`).join(', ');
  const sql = `INSERT INTO salary_records (release_id, ${RECORD_COLUMNS.join(', ')})
               SELECT $1, * FROM unnest(${unnest})`;
  for (let start = 0; start < records.length; start += BATCH) {
    const batch = records.slice(start, start + BATCH);
    const columns = RECORD_COLUMNS.map((column) => batch.map((r) => r[column]));
    await db.query(sql, [releaseId, ...columns]);
  }
}

/**
 * A release's records in order (country, job, year, level). Each country's come as one JSON
 * array built by the database: the embedded database's row-by-row protocol parsing took about
 * twice as long, and one array for the whole release grew its WebAssembly memory (which never
 * shrinks) by twice as much.
 */
export async function listRecords(db: Queryable, releaseId: number): Promise<ReleaseRecord[]> {
  const countries = await db.query<{ country: string }>(
    'SELECT DISTINCT country FROM salary_records WHERE release_id = $1 ORDER BY country',
    [releaseId],
  );
  const records: ReleaseRecord[] = [];
  // Equal texts (a country, a job, a note shared by many cells) are held once: the records then
  // take about half the memory (5.3 against 11.0 MiB for 29,484 records).
  const texts = new Map<string, string>();
  const text = (value: string): string => {
    const held = texts.get(value);
    if (held !== undefined) return held;
    texts.set(value, value);
    return value;
  };
  for (const { country } of countries) {
    const [batch] = await db.query<{ records: string }>(
      `SELECT json_agg(r ORDER BY job, year, level)::text AS records FROM (
         SELECT ${RECORD_COLUMNS.join(', ')} FROM salary_records
         WHERE release_id = $1 AND country = $2) r`,
      [releaseId, country],
    );
    const rows = JSON.parse(batch!.records) as (Omit<ReleaseRecord, 'type' | 'basis'> & {
      basis: string;
    })[];
    for (const row of rows)
      records.push({
        type: 'salary',
        ...row,
        country: text(row.country.trim()),
        job: text(row.job),
        level: text(row.level),
        basis: text(row.basis) as RecordBasis,
        confidence: text(row.confidence) as ReleaseRecord['confidence'],
        confidence_note: text(row.confidence_note),
        local_currency: text(row.local_currency.trim()),
      });
  }
  return records;
}

/** Dates a release's loading and its data.updated event `at`. */
export async function restampRelease(db: Queryable, release: ReleaseRow, at: Date): Promise<void> {
  await db.query('UPDATE data_releases SET loaded_at = $2 WHERE id = $1', [
    release.id,
    at.toISOString(),
  ]);
  await db.query(
    `UPDATE events SET created_at = $2, data = jsonb_set(data, '{loaded_at}', to_jsonb($3::text))
     WHERE type = 'data.updated' AND data->>'release' = $1`,
    [release.version, at.toISOString(), at.toISOString()],
  );
}

export async function insertEvent(
  db: Queryable,
  event: { id: string; type: string; createdAt: Date; data: unknown },
): Promise<void> {
  await db.query('INSERT INTO events (id, type, created_at, data) VALUES ($1, $2, $3, $4)', [
    event.id,
    event.type,
    event.createdAt.toISOString(),
    JSON.stringify(event.data),
  ]);
}
