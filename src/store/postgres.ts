import pg from 'pg';
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

  const query = async <T>(sql: string, params?: readonly unknown[]): Promise<T[]> => {
    const result = await pool.query(sql, params as unknown[] | undefined);
    return result.rows as T[];
  };
  return {
    kind: 'postgres',
    query,
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        await client.query('BEGIN');
        const result = await fn({
          query: async <R>(sql: string, params?: readonly unknown[]) =>
            (await client.query(sql, params as unknown[] | undefined)).rows as R[],
        });
        await client.query('COMMIT');
        return result;
      } catch (error) {
        if (isConnectionError(error)) broken = error as Error;
        else await client.query('ROLLBACK').catch((e: Error) => (broken = e));
        throw error;
      } finally {
        // A client whose connection failed is destroyed, not handed to the next caller.
        client.release(broken);
      }
    },
    async exec(sql: string): Promise<void> {
      await pool.query(sql);
    },
    async close(): Promise<void> {
      await pool.end();
    },
  };
}
