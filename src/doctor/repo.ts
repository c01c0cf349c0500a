import type { Queryable } from '../store/index.js';

/** The oldest stored webhook signing secret (encrypted), to try SECRET_KEY on; none: undefined. */
export async function oldestWebhookSecret(db: Queryable): Promise<string | undefined> {
  const [row] = await db.query<{ secret_enc: string }>(
    'SELECT secret_enc FROM webhook_endpoints ORDER BY created_at LIMIT 1',
  );
  return row?.secret_enc;
}

/** The data release loaded last, and when; undefined when none was loaded yet. */
export async function lastLoadedRelease(
  db: Queryable,
): Promise<{ version: string; loadedAt: number } | undefined> {
  const [row] = await db.query<{ version: string; loaded_at: Date | string }>(
    'SELECT version, loaded_at FROM data_releases ORDER BY id DESC LIMIT 1',
  );
  return row === undefined
    ? undefined
    : { version: row.version, loadedAt: new Date(row.loaded_at).getTime() };
}

/** The database server's clock, epoch ms. */
export async function databaseNow(db: Queryable): Promise<number> {
  const [row] = await db.query<{ now: Date | string }>('SELECT now() AS now');
  return new Date(row!.now).getTime();
}
