import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { BUNDLED_RELEASE, releaseFilesFor, type Config } from '../config/index.js';
import { systemClock, type Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import {
  compareReleaseVersions,
  createReleaseService,
  readReleaseFile,
} from '../releases/index.js';
import {
  findDataImage,
  imageInputs,
  migrate,
  openDatabase,
  openPglite,
  pgliteVersion,
  sha256File,
  writeDataImage,
  listMigrations,
  type Db,
  type ImageManifest,
} from '../store/index.js';

/** A command's logger (pino on standard output); commands pass `warn`: their answer is the output. */
export function commandLogger(level: string): pino.Logger {
  return pino({ level, base: { service: 'salary-api' } });
}

/**
 * Opens the configured database and brings its schema up to date. An embedded database opened
 * for the first time is unpacked from the prepared image when the build made one (see
 * src/store/data-image.ts): migrated, the bundled release loaded and dated now. `role` names
 * this process to another that finds the embedded database held (`server`, `salary-api migrate`).
 */
export async function openConfiguredDatabase(
  config: Config,
  logger: Logger,
  role: string,
  options: { clock?: Clock; imageDir?: string } = {},
): Promise<Db> {
  const clock = options.clock ?? systemClock;
  let unpacked = false;
  const db = await openDatabase(config, {
    role,
    image: () => imageFor(config.releaseFile, options.imageDir),
    onUnpacked: async (fresh) => {
      unpacked = true;
      await createReleaseService({ db: fresh, clock }).restampKept();
    },
  });
  try {
    const applied = await migrate(db);
    if (unpacked)
      logger.info(
        { dataDir: config.dataDir },
        'embedded database unpacked from the prepared image',
      );
    if (applied.length > 0) logger.info({ migrations: applied }, 'migrations applied');
    return db;
  } catch (error) {
    await db.close();
    throw error;
  }
}

/**
 * The image's gzipped tarball (its path) when it may seed a new database whose release file is `file`:
 * the image holds that very file, or an older release (the newer one is then loaded and
 * announced at start, as on any database). Otherwise the database starts empty and the
 * configured file is loaded into it.
 */
export async function imageFor(file: string, imageDir?: string): Promise<string | undefined> {
  const image = findDataImage(imageDir);
  if (image === undefined) return undefined;
  if (image.manifest.release.sha256 !== sha256File(file)) {
    const wanted = (await readReleaseFile(file)).header.version;
    if (compareReleaseVersions(wanted, image.manifest.release.version) <= 0) return undefined;
  }
  return image.file;
}

/**
 * Brings a new database to what a first start makes of it: migrated, `releaseFile` loaded (after
 * the older releases bundled beside it, so it is the active one).
 */
export async function prepareDatabase(
  db: Db,
  releaseFile: string,
  clock: Clock = systemClock,
): Promise<ImageManifest['release']> {
  await migrate(db);
  const releases = createReleaseService({ db, clock });
  let version = '';
  for (const file of releaseFilesFor(releaseFile)) {
    const parsed = await readReleaseFile(file);
    await releases.load(parsed);
    version = parsed.header.version;
  }
  return { version, sha256: sha256File(releaseFile) };
}

/** What a prepared database is made from, hashed: the store's inputs and the release loader. */
export function preparedInputs(releaseFile: string): string {
  const dir = fileURLToPath(new URL('../releases/', import.meta.url));
  const code = readdirSync(dir)
    .filter((name) => /\.(js|ts)$/.test(name) && !name.endsWith('.test.ts'))
    .sort()
    .map((name) => join(dir, name));
  return imageInputs(releaseFilesFor(releaseFile), code);
}

/**
 * Makes the prepared image (`npm run build`) beside the compiled store, unless the one there was
 * made from the same inputs (preparedInputs). Returns whether it made one.
 */
export async function buildDataImage(releaseFile = BUNDLED_RELEASE): Promise<boolean> {
  const inputs = preparedInputs(releaseFile);
  if (findDataImage()?.manifest.inputs === inputs) return false;
  const db = await openPglite(undefined);
  try {
    const release = await prepareDatabase(db, releaseFile);
    await writeDataImage(db, {
      pglite: pgliteVersion(),
      migrations: listMigrations().map((m) => m.version),
      release,
      inputs,
    });
    return true;
  } finally {
    await db.close();
  }
}
