/**
 * The database as the features see it: parameterised queries and transactions. Two
 * implementations, PGlite (embedded, in DATA_DIR) and PostgreSQL (DATABASE_URL), run the same
 * SQL and the same migrations.
 */
export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<T[]>;
}

export interface Db extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * Opens a transaction that every query and transaction of this Db made inside its `run`
   * joins (nested transactions become savepoints). `idleTimeoutMs`: PostgreSQL ends the
   * session if the transaction waits on its holder longer than this (a lease on a dead holder).
   */
  begin(options?: { idleTimeoutMs?: number }): Promise<AmbientTransaction>;
  /** Runs a multi-statement SQL script (migrations). */
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
  /**
   * Embedded only: the data directory as a gzipped tarball, taken between two queries after a
   * checkpoint (a crash-consistent copy PostgreSQL opens as after a clean stop or a crash).
   */
  snapshot?(): Promise<Uint8Array>;
}

/**
 * A transaction that the code running inside it need not be handed: every query and
 * transaction of the Db made in `run`'s async context joins it. The idempotency layer uses it
 * so that a handler's writes and the response stored for its `Idempotency-Key` commit together
 * or not at all.
 */
export interface AmbientTransaction {
  run<T>(fn: () => T): T;
  /** A statement of the caller's own, inside the transaction. */
  query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  commit(): Promise<void>;
  /** Rolls back; never throws (the connection may be gone, which rolls back too). */
  rollback(): Promise<void>;
}

/**
 * A json/jsonb column as read back: node-postgres parses it, some drivers hand over the text.
 * Either way the caller gets the value (null stays null).
 */
export function jsonColumn<T>(value: T | string): T {
  return typeof value === 'string' ? (JSON.parse(value) as T) : value;
}

/** One round trip to the database: the readiness check. */
export async function pingDatabase(db: Queryable): Promise<void> {
  await db.query('SELECT 1');
}
