import pg from 'pg';
import { AmbientRouter, type OpenTransaction } from './ambient.js';
import type { Db, Queryable } from './db.js';
import { isConnectionError } from './faults.js';

// BIGINT and NUMERIC come back as JS numbers: every such column here holds counts and money
// in cents that stay well inside 2^53.
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1700, (v) => Number(v));

export interface PostgresOptions {
  max?: number;
  connectionTimeoutMs?: number;
  statementTimeoutMs?: number;
}

/** PostgreSQL through a pg pool with short timeouts, so a database fault fails fast (503). */
export function openPostgres(url: string, options: PostgresOptions = {}): Db {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? 3000,
    statement_timeout: options.statementTimeoutMs ?? 30_000,
    idleTimeoutMillis: 30_000,
  });
  // A client losing its connection emits 'error'; with no listener that ends the process. The
  // pool listens only while a client is idle, so every client gets its own listener for its
  // whole life: while checked out (a transaction between statements), the fault surfaces as the
  // next statement's rejection instead, and the client is discarded on release.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });
  const ambient = new AmbientRouter();

  /** BEGIN on a client of its own; a client whose connection failed is destroyed on release. */
  async function open(idleTimeoutMs?: number): Promise<OpenTransaction> {
    const client = await pool.connect();
    let broken: Error | undefined;
    const run = async (sql: string, params?: readonly unknown[]) => {
      try {
        return await client.query(sql, params as unknown[] | undefined);
      } catch (error) {
        if (isConnectionError(error)) broken = error as Error;
        throw error;
      }
    };
    try {
      await run('BEGIN');
      if (idleTimeoutMs !== undefined)
        await run(`SET LOCAL idle_in_transaction_session_timeout = ${Math.ceil(idleTimeoutMs)}`);
    } catch (error) {
      client.release(broken ?? (error as Error));
      throw error;
    }
    return {
      query: async <R>(sql: string, params?: readonly unknown[]) =>
        (await run(sql, params)).rows as R[],
      async end(commit) {
        try {
          // COMMIT of a transaction that an error aborted answers ROLLBACK, without an error.
          const result = await run(commit ? 'COMMIT' : 'ROLLBACK');
          if (commit && result.command === 'ROLLBACK')
            throw new Error('the transaction was rolled back');
        } catch (error) {
          broken ??= error as Error;
          throw error;
        } finally {
          client.release(broken);
        }
      },
    };
  }

  const query = async <T>(sql: string, params?: readonly unknown[]): Promise<T[]> => {
    const routed = ambient.query<T>(sql, params);
    if (routed !== undefined) return routed;
    const result = await pool.query(sql, params as unknown[] | undefined);
    return result.rows as T[];
  };
  return {
    kind: 'postgres',
    query,
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      const routed = ambient.transaction(fn);
      if (routed !== undefined) return routed;
      const tx = await open();
      let result: T;
      try {
        result = await fn(tx);
      } catch (error) {
        await tx.end(false).catch(() => undefined);
        throw error;
      }
      await tx.end(true);
      return result;
    },
    async begin(beginOptions = {}) {
      return ambient.wrap(await open(beginOptions.idleTimeoutMs));
    },
    async exec(sql: string): Promise<void> {
      await pool.query(sql);
    },
    async close(): Promise<void> {
      await pool.end();
    },
  };
}
