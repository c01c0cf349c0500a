import { PGlite, type Transaction } from '@electric-sql/pglite';
import { AmbientRouter } from './ambient.js';
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
