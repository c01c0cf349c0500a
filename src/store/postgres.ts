import pg from 'pg';
import type { Db, Queryable } from './db.js';

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
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);

  const query = async <T>(sql: string, params?: readonly unknown[]): Promise<T[]> => {
    const result = await pool.query(sql, params as unknown[] | undefined);
    return result.rows as T[];
  };
  return {
    kind: 'postgres',
    query,
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn({
          query: async <R>(sql: string, params?: readonly unknown[]) =>
            (await client.query(sql, params as unknown[] | undefined)).rows as R[],
        });
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
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
