import { randomBytes } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  openAsBlob,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { BUNDLED_RELEASE } from '../../src/config/index.js';
import { prepareDatabase, preparedInputs } from '../../src/main/cli-database.js';
import { POSTGRESQL_CONF } from '../../src/store/pglite.js';
import { migrate, openPglite, openPostgres, wrapPglite, type Db } from '../../src/store/index.js';

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

/**
 * The prepared data directory as an uncompressed tarball (PGlite's dumpDataDir), made once beside
 * it, without the WAL segments PostgreSQL recycled for later use (it makes new ones as needed).
 */
async function templateImage(): Promise<string> {
  const template = await templateDir();
  const image = `${template}.tar`;
  if (existsSync(image)) return image;
  const dir = mkdtempSync(join(tmpdir(), 'salary-api-test-'));
  cpSync(template, dir, { recursive: true });
  const db = await PGlite.create({ dataDir: dir, postgresqlconf: POSTGRESQL_CONF });
  const [{ last }] = (
    await db.query<{ last: string }>('SELECT pg_walfile_name(pg_current_wal_insert_lsn()) AS last')
  ).rows as [{ last: string }];
  for (const name of readdirSync(join(dir, 'pg_wal')))
    if (/^[0-9A-F]{24}$/.test(name) && name > last) rmSync(join(dir, 'pg_wal', name));
  const tarball = await db.dumpDataDir('none');
  await db.close();
  rmSync(dir, { recursive: true, force: true });
  const writing = `${image}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(writing, new Uint8Array(await tarball.arrayBuffer()));
  renameSync(writing, image); // another test process may have written the same bytes first
  return image;
}

let image: Promise<Blob> | undefined;

/**
 * A private PGlite database in memory, loaded from the prepared one's tarball: no thousand files
 * to copy to disk and remove again. The same database as `clonePglite`'s, except for where
 * PostgreSQL keeps its files: what tests the embedded store on disk uses `clonePglite`.
 */
export async function memoryPglite(): Promise<TestDb> {
  image ??= templateImage().then((path) => openAsBlob(path));
  const db = wrapPglite(
    await PGlite.create({ loadDataDir: await image, postgresqlconf: POSTGRESQL_CONF }),
  );
  return { db, cleanup: () => db.close() };
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
