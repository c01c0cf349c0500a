/**
 * Creates a new PGlite data directory and exits: initdb, or the prepared image IMAGE (a gzipped
 * tarball of a data directory) unpacked with PGlite's loadDataDir. Run as a child process by
 * `openPglite`, so that memory never lands in the serving process.
 *
 *   node pglite-init.js DATA_DIR POSTGRESQL_CONF_JSON [IMAGE]
 */
import { PGlite } from '@electric-sql/pglite';
import { readFileSync } from 'node:fs';

const [dataDir, conf, image] = process.argv.slice(2);
if (dataDir === undefined || conf === undefined)
  throw new Error('usage: DATA_DIR CONF_JSON [IMAGE]');
const pg = await PGlite.create({
  dataDir,
  postgresqlconf: JSON.parse(conf) as string[],
  ...(image === undefined ? {} : { loadDataDir: new Blob([readFileSync(image)]) }),
});
await pg.close();
