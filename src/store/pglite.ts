import { PGlite } from '@electric-sql/pglite';
import type { Db, Queryable } from './db.js';
import { makePrivateDir, restrictTree } from './private-files.js';

/** How often the data files' modes are tightened again while the database runs. */
const RESTRICT_EVERY_MS = 60_000;

/**
 * Embedded PostgreSQL (PGlite). One connection, so queries are serialised by PGlite itself;
 * a transaction holds it exclusively until it ends.
 */
export async function openPglite(dataDir: string | undefined): Promise<Db> {
  if (dataDir === undefined) return wrapPglite(await PGlite.create({}));
  makePrivateDir(dataDir);
  const db = wrapPglite(await PGlite.create({ dataDir }));
  restrictTree(dataDir);
  const sweep = setInterval(() => restrictTree(dataDir), RESTRICT_EVERY_MS);
  sweep.unref();
  return {
    ...db,
    async close() {
      clearInterval(sweep);
      await db.close();
      restrictTree(dataDir);
    },
  };
}

export function wrapPglite(pg: PGlite): Db {
  const query = async <T>(sql: string, params?: readonly unknown[]): Promise<T[]> => {
    const result = await pg.query<T>(sql, params as unknown[] | undefined);
    return result.rows;
  };
  return {
    kind: 'pglite',
    query,
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      return pg.transaction(async (tx) =>
        fn({
          query: async <R>(sql: string, params?: readonly unknown[]) =>
            (await tx.query<R>(sql, params as unknown[] | undefined)).rows,
        }),
      );
    },
    async exec(sql: string): Promise<void> {
      await pg.exec(sql);
    },
    async close(): Promise<void> {
      if (!pg.closed) await pg.close();
    },
  };
}
