import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Db } from './db.js';
import { listMigrations } from './migrate.js';
import { POSTGRESQL_CONF } from './pglite.js';

/**
 * A prepared embedded database: a PGlite data directory with the migrations applied and the
 * bundled release loaded, made by `npm run build` as a gzipped tarball (PGlite's dumpDataDir)
 * with a manifest beside it. A first start unpacks it (PGlite's loadDataDir) instead of paying
 * for initdb, the migrations and the release load; what the code has that the image lacks
 * (a newer migration, a newer release) is then applied as on any start.
 */
export interface ImageManifest {
  /** A data directory is opened only by the PGlite (PostgreSQL build) that wrote it. */
  pglite: string;
  /** The migrations applied in the image. */
  migrations: number[];
  /** The release loaded in the image. */
  release: { version: string; sha256: string };
  /** Hash of everything the image is made from: an unchanged one is not made again. */
  inputs: string;
}

export interface DataImage {
  manifest: ImageManifest;
  /** The gzipped tarball's path. */
  file: string;
}

const DEFAULT_DIR = dirname(fileURLToPath(import.meta.url));
const TARBALL = 'pglite-image.tar.gz';
const MANIFEST = 'pglite-image.json';

export function pgliteVersion(): string {
  const require = createRequire(import.meta.url);
  let dir = dirname(require.resolve('@electric-sql/pglite'));
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string })
    .version;
}

export function sha256File(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/**
 * The hash of an image's inputs: PGlite's version, its settings, the migrations, the release,
 * and `code` (the files of the code that loads it).
 */
export function imageInputs(
  releaseFiles: string | readonly string[],
  code: readonly string[] = [],
): string {
  const hash = createHash('sha256').update(pgliteVersion()).update(POSTGRESQL_CONF.join('\n'));
  for (const m of listMigrations()) hash.update(`${m.version}:${m.sql}`);
  for (const file of code) hash.update(readFileSync(file));
  for (const file of typeof releaseFiles === 'string' ? [releaseFiles] : releaseFiles)
    hash.update(sha256File(file));
  return hash.digest('hex');
}

/**
 * The image in `dir` (beside the compiled store by default), when one is there that this code
 * can open: written by the same PGlite, with no migration this code does not know.
 */
export function findDataImage(dir = DEFAULT_DIR): DataImage | undefined {
  const manifestFile = join(dir, MANIFEST);
  if (!existsSync(manifestFile) || !existsSync(join(dir, TARBALL))) return undefined;
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as ImageManifest;
  const known = new Set(listMigrations().map((m) => m.version));
  if (manifest.pglite !== pgliteVersion() || !manifest.migrations.every((v) => known.has(v)))
    return undefined;
  return { manifest, file: join(dir, TARBALL) };
}

/** Whether `dir` holds an image made from exactly these inputs. */
export function dataImageCurrent(inputs: string, dir = DEFAULT_DIR): boolean {
  return findDataImage(dir)?.manifest.inputs === inputs;
}

/** Writes `db` (a prepared PGlite database) as the image in `dir`, the manifest last. */
export async function writeDataImage(
  db: Db,
  manifest: ImageManifest,
  dir = DEFAULT_DIR,
): Promise<void> {
  if (db.snapshot === undefined) throw new Error('only an embedded database makes an image');
  rmSync(join(dir, MANIFEST), { force: true });
  const tarball = await db.snapshot();
  writeFileSync(join(dir, `${TARBALL}.tmp`), tarball);
  renameSync(join(dir, `${TARBALL}.tmp`), join(dir, TARBALL));
  writeFileSync(join(dir, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
}
