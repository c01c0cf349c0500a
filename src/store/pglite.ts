import { PGlite, type Transaction } from '@electric-sql/pglite';
import { mkdirSync } from 'node:fs';
import { AmbientRouter } from './ambient.js';
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
  };
}
