import { PGlite, type Transaction } from '@electric-sql/pglite';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { AmbientRouter } from './ambient.js';
import type { Db, Queryable } from './db.js';
import { makePrivateDir, restrictTree } from './private-files.js';

/**
 * PostgreSQL's buffer cache inside the WebAssembly memory: the default 128 MB is filled in use
 * and never given back. 16 MB holds the working set (accounts, keys, usage; the release is
 * read once into the in-memory index) and keeps the process about 130 MiB smaller.
 */
export const POSTGRESQL_CONF = ['shared_buffers = 16MB'];

/** How often the data files' modes are tightened again while the database runs. */
const RESTRICT_EVERY_MS = 60_000;

/**
 * Embedded PostgreSQL (PGlite). One connection, so queries are serialised by PGlite itself;
 * a transaction holds it exclusively until it ends.
 */
export interface PgliteCreateOptions {
  /**
   * Asked only when the data directory is new: the path of a prepared one's gzipped tarball to
   * unpack (see data-image.ts); undefined: initdb makes an empty one.
   */
  image?: () => Promise<string | undefined>;
  /** Called once on a database just unpacked from the image, before it is handed out. */
  onUnpacked?: (db: Db) => Promise<void>;
}

export async function openPglite(
  dataDir: string | undefined,
  options: PgliteCreateOptions = {},
): Promise<Db> {
  if (dataDir === undefined)
    return wrapPglite(await PGlite.create({ postgresqlconf: POSTGRESQL_CONF }));
  makePrivateDir(dataDir);
  let image: string | undefined;
  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    image = await options.image?.();
    await createInChildProcess(dataDir, image);
  }
  const db = wrapPglite(await PGlite.create({ dataDir, postgresqlconf: POSTGRESQL_CONF }));
  if (image !== undefined) {
    try {
      await options.onUnpacked?.(db);
    } catch (error) {
      await db.close();
      throw error;
    }
  }
  await restrictTree(dataDir);
  // A sweep that fails otherwise than on a vanished file stops the process, as at open.
  const sweep = setInterval(() => void restrictTree(dataDir), RESTRICT_EVERY_MS);
  sweep.unref();
  return {
    ...db,
    async close() {
      clearInterval(sweep);
      await db.close();
      await restrictTree(dataDir);
    },
  };
}

/**
 * A new data directory is made by a short-lived child process, initdb or unpacked from `image`:
 * either runs a second PostgreSQL in WebAssembly whose compiled code and memory, in this process,
 * kept a first start of the server 70 to 100 MiB larger than every later one.
 */
async function createInChildProcess(dataDir: string, image: string | undefined): Promise<void> {
  const self = fileURLToPath(import.meta.url);
  const script = join(self, '..', `pglite-init${self.endsWith('.ts') ? '.ts' : '.js'}`);
  // The same node flags (the TypeScript loader in tests and development).
  await promisify(execFile)(
    process.execPath,
    [
      ...process.execArgv,
      script,
      dataDir,
      JSON.stringify(POSTGRESQL_CONF),
      ...(image === undefined ? [] : [image]),
    ],
    { timeout: 120_000 },
  );
}

export function wrapPglite(pg: PGlite): Db {
  const ambient = new AmbientRouter();
  const query = async <T>(sql: string, params?: readonly unknown[]): Promise<T[]> => {
    const routed = ambient.query<T>(sql, params);
    if (routed !== undefined) return routed;
    const result = await pg.query<T>(sql, params as unknown[] | undefined);
    return result.rows;
  };
  return {
    kind: 'pglite',
    query,
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      const routed = ambient.transaction(fn);
      if (routed !== undefined) return routed;
      return pg.transaction(async (tx) =>
        fn({
          query: async <R>(sql: string, params?: readonly unknown[]) =>
            (await tx.query<R>(sql, params as unknown[] | undefined)).rows,
        }),
      );
    },
    async begin() {
      // PGlite's transaction is a callback; it stays open until `end` settles `decided`.
      let decide!: (commit: boolean) => void;
      const decided = new Promise<boolean>((resolve) => (decide = resolve));
      let opened!: (tx: Transaction) => void;
      const ready = new Promise<Transaction>((resolve) => (opened = resolve));
      const done = pg.transaction(async (tx) => {
        opened(tx);
        if (!(await decided)) await tx.rollback();
      });
      const tx = await Promise.race([
        ready,
        done.then(() => {
          throw new Error('the transaction ended before it began');
        }),
      ]);
      return ambient.wrap({
        query: async <R>(sql: string, params?: readonly unknown[]) =>
          (await tx.query<R>(sql, params as unknown[] | undefined)).rows,
        async end(commit) {
          decide(commit);
          await done;
        },
      });
    },
    async exec(sql: string): Promise<void> {
      await pg.exec(sql);
    },
    async close(): Promise<void> {
      if (!pg.closed) await pg.close();
    },
    async snapshot(): Promise<Uint8Array> {
      await pg.exec('CHECKPOINT');
      return new Uint8Array(await (await pg.dumpDataDir('gzip')).arrayBuffer());
    },
  };
}
