import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Db } from './db.js';

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));
/** Arbitrary constant for pg_advisory_xact_lock: only one instance migrates at a time. */
const MIGRATION_LOCK = 7_405_112_026;

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** The numbered SQL files (NNNN_name.sql), in order. Forward-only. */
export function listMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((file) => ({
      version: Number(file.slice(0, 4)),
      name: file.slice(5, -4),
      sql: readFileSync(new URL(file, `file://${dir}`), 'utf8'),
    }));
}

/**
 * Applies the migrations not yet applied, each in its own transaction; returns their names.
 * An up-to-date database costs one read: only the versions missing from it take the lock.
 */
export async function migrate(db: Db, migrations = listMigrations()): Promise<string[]> {
  await db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version integer PRIMARY KEY,
    name text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
  )`);
  const present = new Set(
    (await db.query<{ version: number }>('SELECT version FROM schema_migrations')).map((r) =>
      Number(r.version),
    ),
  );
  const applied: string[] = [];
  for (const migration of migrations.filter((m) => !present.has(m.version))) {
    const done = await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      const rows = await tx.query('SELECT 1 FROM schema_migrations WHERE version = $1', [
        migration.version,
      ]);
      if (rows.length > 0) return false;
      for (const statement of splitStatements(migration.sql)) await tx.query(statement);
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
        migration.version,
        migration.name,
      ]);
      return true;
    });
    if (done) applied.push(`${String(migration.version).padStart(4, '0')}_${migration.name}`);
  }
  return applied;
}

/** Splits a migration into statements at semicolons that end a line (no procedural bodies). */
function splitStatements(sql: string): string[] {
  return sql
    .replace(/^\s*--.*$/gm, '')
    .split(/;\s*$/m)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** The highest migration applied to `db`. */
export async function migrationLevel(db: Db): Promise<number> {
  const [row] = await db.query<{ level: number | null }>(
    'SELECT max(version) AS level FROM schema_migrations',
  );
  return Number(row?.level ?? 0);
}
