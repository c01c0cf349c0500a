/**
 * Creates a new PGlite data directory (initdb) and exits: run as a child process by
 * `openPglite`, so initdb's memory never lands in the serving process.
 *
 *   node pglite-init.js DATA_DIR POSTGRESQL_CONF_JSON
 */
import { PGlite } from '@electric-sql/pglite';

const [dataDir, conf] = process.argv.slice(2);
if (dataDir === undefined || conf === undefined) throw new Error('usage: DATA_DIR CONF_JSON');
const pg = await PGlite.create({ dataDir, postgresqlconf: JSON.parse(conf) as string[] });
await pg.close();
