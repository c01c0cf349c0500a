import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { BUNDLED_RELEASE } from '../../src/config/index.js';
import { prepareDatabase, preparedInputs } from '../../src/main/cli-database.js';
import { migrate, openPglite, openPostgres, type Db } from '../../src/store/index.js';

/**
 * PGlite's first start runs initdb (seconds). Tests share one prepared data directory, made as
 * the build makes the image a first start unpacks (prepareDatabase: migrated, bundled release
 * loaded), once per hash of the same inputs in the temp folder; each test opens its own copy.
 */
export async function templateDir(): Promise<string> {
  const hash = preparedInputs(BUNDLED_RELEASE);
  const dir = join(tmpdir(), `salary-api-pglite-${hash.slice(0, 16)}`);
  if (existsSync(join(dir, 'PG_VERSION'))) return dir;
  const building = `${dir}.${process.pid}.${randomBytes(4).toString('hex')}`;
  const db = await openPglite(building);
  await prepareDatabase(db, BUNDLED_RELEASE);
  await db.close();
  try {
    renameSync(building, dir);
  } catch {
    rmSync(building, { recursive: true, force: true }); // another test process won the race
  }
  return dir;
}

export interface TestDb {
  db: Db;
  /** Closes the database and removes what the test created. */
  cleanup(): Promise<void>;
}

/** A private PGlite database, migrated, with the bundled release loaded. */
export async function clonePglite(): Promise<TestDb> {
  const template = await templateDir();
  const dir = mkdtempSync(join(tmpdir(), 'salary-api-test-'));
  cpSync(template, dir, { recursive: true });
  const db = await openPglite(dir);
  return {
    db,
    async cleanup() {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Whether PostgreSQL tests run: always in CI (where a failure to connect fails the test). */
export async function postgresAvailable(): Promise<boolean> {
  if (process.env.CI === 'true') return true;
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

/** A fresh, empty PostgreSQL database (migrated), dropped on cleanup. */
export async function freshPostgres(): Promise<TestDb & { url: string }> {
  const name = `salary_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const db = openPostgres(url.toString());
  await migrate(db);
  return {
    db,
    url: url.toString(),
    async cleanup() {
      await db.close();
      const client = new pg.Client({ connectionString: ADMIN_URL });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}
