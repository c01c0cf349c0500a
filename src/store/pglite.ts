import { PGlite } from '@electric-sql/pglite';
import { mkdirSync } from 'node:fs';
import type { Db, Queryable } from './db.js';

/**
 * Embedded PostgreSQL (PGlite). One connection, so queries are serialised by PGlite itself;
 * a transaction holds it exclusively until it ends.
 */
export async function openPglite(dataDir: string | undefined): Promise<Db> {
  if (dataDir !== undefined) mkdirSync(dataDir, { recursive: true });
  const pg = await PGlite.create(dataDir === undefined ? {} : { dataDir });
  return wrapPglite(pg);
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
