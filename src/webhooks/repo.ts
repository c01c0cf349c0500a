import {
  claimSql,
  jsonColumn,
  releaseClaims,
  settleClaimed,
  type Queryable,
  type QueueTable,
} from '../store/index.js';

/** The `webhooks.deliver` queue's table: deliveries of enabled endpoints are due. */
const DELIVERIES: QueueTable = {
  table: 'webhook_deliveries',
  open: ['pending'],
  join: 'JOIN webhook_endpoints e ON e.id = q.endpoint_id',
  dueWhen: 'e.enabled',
};

type Time = Date | string;
const iso = (t: Time): string => new Date(t).toISOString();
const isoOrNull = (t: Time | null): string | null => (t === null ? null : iso(t));

export interface EndpointRow {
  id: string;
  accountId: string;
  url: string;
  events: string[];
  enabled: boolean;
  disabledReason: string | null;
  secretEnc: string;
  previousSecretEnc: string | null;
  previousSecretExpiresAt: string | null;
  failingSince: string | null;
  createdAt: string;
  updatedAt: string;
}

interface EndpointDbRow {
  id: string;
  account_id: string;
  url: string;
  events: string[];
  enabled: boolean;
  disabled_reason: string | null;
  secret_enc: string;
  previous_secret_enc: string | null;
  previous_secret_expires_at: Time | null;
  failing_since: Time | null;
  created_at: Time;
  updated_at: Time;
}

const ENDPOINT_COLUMNS =
  'id, account_id, url, events, enabled, disabled_reason, secret_enc, previous_secret_enc, previous_secret_expires_at, failing_since, created_at, updated_at';

function toEndpoint(r: EndpointDbRow): EndpointRow {
  return {
    id: r.id,
    accountId: r.account_id,
    url: r.url,
    events: r.events,
    enabled: r.enabled,
    disabledReason: r.disabled_reason,
    secretEnc: r.secret_enc,
    previousSecretEnc: r.previous_secret_enc,
    previousSecretExpiresAt: isoOrNull(r.previous_secret_expires_at),
    failingSince: isoOrNull(r.failing_since),
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  };
}

export async function insertEndpoint(
  db: Queryable,
  e: { id: string; accountId: string; url: string; events: string[]; secretEnc: string; at: Date },
): Promise<EndpointRow> {
  const rows = await db.query<EndpointDbRow>(
    `INSERT INTO webhook_endpoints (id, account_id, url, events, secret_enc, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING ${ENDPOINT_COLUMNS}`,
    [e.id, e.accountId, e.url, e.events, e.secretEnc, e.at.toISOString()],
  );
  return toEndpoint(rows[0]!);
}

export async function countEndpoints(db: Queryable, accountId: string): Promise<number> {
  const rows = await db.query<{ n: number | string }>(
    'SELECT count(*) AS n FROM webhook_endpoints WHERE account_id = $1',
    [accountId],
  );
  return Number(rows[0]?.n ?? 0);
}

export async function listEndpoints(db: Queryable, accountId: string): Promise<EndpointRow[]> {
  const rows = await db.query<EndpointDbRow>(
    `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE account_id = $1 ORDER BY created_at, id`,
    [accountId],
  );
  return rows.map(toEndpoint);
}

export async function findEndpoint(
  db: Queryable,
  accountId: string,
  id: string,
): Promise<EndpointRow | undefined> {
  const rows = await db.query<EndpointDbRow>(
    `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE account_id = $1 AND id = $2`,
    [accountId, id],
  );
  return rows[0] === undefined ? undefined : toEndpoint(rows[0]);
}

export interface EndpointChanges {
  url?: string;
  events?: string[];
  enabled?: boolean;
  disabledReason?: string | null;
  secretEnc?: string;
  previousSecretEnc?: string | null;
  previousSecretExpiresAt?: Date | null;
  failingSince?: Date | null;
}

const CHANGE_COLUMNS: Record<keyof EndpointChanges, string> = {
  url: 'url',
  events: 'events',
  enabled: 'enabled',
  disabledReason: 'disabled_reason',
  secretEnc: 'secret_enc',
  previousSecretEnc: 'previous_secret_enc',
  previousSecretExpiresAt: 'previous_secret_expires_at',
  failingSince: 'failing_since',
};

export async function updateEndpoint(
  db: Queryable,
  id: string,
  changes: EndpointChanges,
  at: Date,
): Promise<EndpointRow | undefined> {
  const sets = ['updated_at = $2'];
  const params: unknown[] = [id, at.toISOString()];
  for (const [field, column] of Object.entries(CHANGE_COLUMNS)) {
    const value = changes[field as keyof EndpointChanges];
    if (value === undefined) continue;
    params.push(value instanceof Date ? value.toISOString() : value);
    sets.push(`${column} = $${params.length}`);
  }
  const rows = await db.query<EndpointDbRow>(
    `UPDATE webhook_endpoints SET ${sets.join(', ')} WHERE id = $1 RETURNING ${ENDPOINT_COLUMNS}`,
    params,
  );
  return rows[0] === undefined ? undefined : toEndpoint(rows[0]);
}

export async function deleteEndpoint(db: Queryable, accountId: string, id: string): Promise<void> {
  await db.query('DELETE FROM webhook_endpoints WHERE account_id = $1 AND id = $2', [
    accountId,
    id,
  ]);
}

/** An endpoint that failed first at `now` keeps its earlier failing_since; returns it. */
export async function markFailing(db: Queryable, id: string, now: Date): Promise<string | null> {
  const rows = await db.query<{ failing_since: Time | null }>(
    `UPDATE webhook_endpoints SET failing_since = COALESCE(failing_since, $2)
     WHERE id = $1 RETURNING failing_since`,
    [id, now.toISOString()],
  );
  return rows[0] === undefined ? null : isoOrNull(rows[0].failing_since);
}

export async function clearFailing(db: Queryable, id: string): Promise<void> {
  await db.query(
    'UPDATE webhook_endpoints SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL',
    [id],
  );
}

/** Pending deliveries of a disabled endpoint end as failed; they are not kept for days. */
export async function failPendingDeliveries(
  db: Queryable,
  endpointId: string,
  reason: string,
  now: Date,
): Promise<void> {
  await db.query(
    `UPDATE webhook_deliveries
     SET status = 'failed', last_error = $2, next_attempt_at = NULL, claimed_by = NULL,
         claimed_until = NULL, completed_at = $3, updated_at = $3
     WHERE endpoint_id = $1 AND status = 'pending'`,
    [endpointId, reason, now.toISOString()],
  );
}

// Deliveries

/**
 * The outbox fan-out: one pending delivery per enabled endpoint subscribed to the event's
 * kind whose account is on a plan with webhooks. Runs in the caller's transaction.
 */
export async function insertDeliveriesForEvent(
  db: Queryable,
  event: { id: string; type: string },
  planIds: readonly string[],
  now: Date,
  accountId: string | null = null,
): Promise<number> {
  const rows = await db.query<{ id: string }>(
    `INSERT INTO webhook_deliveries (id, endpoint_id, event_id, next_attempt_at, created_at, updated_at)
     SELECT 'dlv_' || replace(gen_random_uuid()::text, '-', ''), e.id, $1, $3, $3, $3
     FROM webhook_endpoints e JOIN accounts a ON a.id = e.account_id
     WHERE e.enabled AND $2 = ANY (e.events) AND a.plan = ANY ($4)
       AND ($5::text IS NULL OR a.id = $5)
     RETURNING id`,
    [event.id, event.type, now.toISOString(), planIds, accountId],
  );
  return rows.length;
}

export async function insertDelivery(
  db: Queryable,
  d: { id: string; endpointId: string; eventId: string; at: Date },
): Promise<void> {
  await db.query(
    `INSERT INTO webhook_deliveries (id, endpoint_id, event_id, next_attempt_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $4, $4)`,
    [d.id, d.endpointId, d.eventId, d.at.toISOString()],
  );
}

/** A claimed delivery with what sending it needs. */
export interface ClaimedDelivery {
  id: string;
  attempts: number;
  endpointId: string;
  accountId: string;
  url: string;
  secretEnc: string;
  previousSecretEnc: string | null;
  previousSecretExpiresAt: string | null;
  eventId: string;
  eventType: string;
  eventCreatedAt: string;
  eventData: unknown;
}

/** Claims up to `limit` due deliveries for `workerId` until `leaseUntil` (store/queue-repo.ts). */
export async function claimDue(
  db: Queryable,
  workerId: string,
  now: Date,
  leaseUntil: Date,
  limit: number,
): Promise<ClaimedDelivery[]> {
  const rows = await db.query<{
    id: string;
    attempts: number;
    endpoint_id: string;
    account_id: string;
    url: string;
    secret_enc: string;
    previous_secret_enc: string | null;
    previous_secret_expires_at: Time | null;
    event_id: string;
    event_type: string;
    event_created_at: Time;
    event_data: unknown;
  }>(
    `WITH claimed AS (${claimSql(DELIVERIES, 'id, attempts, endpoint_id, event_id')})
     SELECT c.id, c.attempts, c.endpoint_id, e.account_id, e.url, e.secret_enc,
            e.previous_secret_enc, e.previous_secret_expires_at, c.event_id,
            ev.type AS event_type, ev.created_at AS event_created_at, ev.data AS event_data
     FROM claimed c JOIN webhook_endpoints e ON e.id = c.endpoint_id JOIN events ev ON ev.id = c.event_id`,
    [workerId, now.toISOString(), leaseUntil.toISOString(), limit],
  );
  return rows.map((r) => ({
    id: r.id,
    attempts: r.attempts,
    endpointId: r.endpoint_id,
    accountId: r.account_id,
    url: r.url,
    secretEnc: r.secret_enc,
    previousSecretEnc: r.previous_secret_enc,
    previousSecretExpiresAt: isoOrNull(r.previous_secret_expires_at),
    eventId: r.event_id,
    eventType: r.event_type,
    eventCreatedAt: iso(r.event_created_at),
    eventData: jsonColumn(r.event_data),
  }));
}

/** Claims a worker held when it stopped: due again at once (embedded mode, one process). */
export function releaseAllClaims(db: Queryable): Promise<number> {
  return releaseClaims(db, DELIVERIES);
}

export async function insertAttempt(
  db: Queryable,
  a: {
    deliveryId: string;
    attempt: number;
    startedAt: Date;
    durationMs: number;
    statusCode: number | null;
    ok: boolean;
    error: string | null;
  },
): Promise<void> {
  await db.query(
    `INSERT INTO webhook_attempts (delivery_id, attempt, started_at, duration_ms, status_code, ok, error)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [a.deliveryId, a.attempt, a.startedAt.toISOString(), a.durationMs, a.statusCode, a.ok, a.error],
  );
}

/**
 * Records the outcome of a claimed attempt, only while `workerId` still holds the claim;
 * false when another worker took it over (its lease ran out).
 */
export function settleDelivery(
  db: Queryable,
  id: string,
  workerId: string,
  outcome: {
    status: 'pending' | 'succeeded' | 'failed';
    nextAttemptAt: Date | null;
    statusCode: number | null;
    error: string | null;
  },
  now: Date,
): Promise<boolean> {
  return settleClaimed(
    db,
    DELIVERIES,
    id,
    workerId,
    {
      status: outcome.status,
      next_attempt_at: outcome.nextAttemptAt,
      last_status_code: outcome.statusCode,
      last_error: outcome.error,
      completed_at: outcome.status === 'pending' ? null : now,
    },
    now,
  );
}

export interface AttemptRow {
  attempt: number;
  started_at: string;
  duration_ms: number | null;
  status_code: number | null;
  ok: boolean;
  error: string | null;
}

export interface DeliveryRow {
  id: string;
  event_id: string;
  event_type: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  next_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  completed_at: string | null;
  attempt_log: AttemptRow[];
}

export async function listDeliveries(
  db: Queryable,
  endpointId: string,
  limit: number,
  deliveryId?: string,
): Promise<DeliveryRow[]> {
  const rows = await db.query<{
    id: string;
    event_id: string;
    event_type: string;
    status: DeliveryRow['status'];
    attempts: number;
    next_attempt_at: Time | null;
    last_status_code: number | null;
    last_error: string | null;
    created_at: Time;
    completed_at: Time | null;
  }>(
    `SELECT d.id, d.event_id, ev.type AS event_type, d.status, d.attempts, d.next_attempt_at,
            d.last_status_code, d.last_error, d.created_at, d.completed_at
     FROM webhook_deliveries d JOIN events ev ON ev.id = d.event_id
     WHERE d.endpoint_id = $1 AND ($3::text IS NULL OR d.id = $3)
     ORDER BY d.created_at DESC, d.id DESC LIMIT $2`,
    [endpointId, limit, deliveryId ?? null],
  );
  if (rows.length === 0) return [];
  const attempts = await db.query<{
    delivery_id: string;
    attempt: number;
    started_at: Time;
    duration_ms: number;
    status_code: number | null;
    ok: boolean;
    error: string | null;
  }>(
    `SELECT delivery_id, attempt, started_at, duration_ms, status_code, ok, error
     FROM webhook_attempts WHERE delivery_id = ANY ($1) ORDER BY id`,
    [rows.map((r) => r.id)],
  );
  return rows.map((r) => ({
    ...r,
    next_attempt_at: r.status === 'pending' ? isoOrNull(r.next_attempt_at) : null,
    created_at: iso(r.created_at),
    completed_at: isoOrNull(r.completed_at),
    attempt_log: attempts
      .filter((a) => a.delivery_id === r.id)
      .map((a) => ({
        attempt: a.attempt,
        started_at: iso(a.started_at),
        // Only a response's timing is shown: a failure's would tell closed ports from filtered.
        duration_ms: a.status_code === null ? null : a.duration_ms,
        status_code: a.status_code,
        ok: a.ok,
        error: a.error,
      })),
  }));
}

/** Pending deliveries and how long (s) the oldest due one has waited at `now` (metrics). */
export async function outboxState(
  db: Queryable,
  now: Date,
): Promise<{ depth: number; oldestDueSeconds: number }> {
  const [row] = await db.query<{ depth: string | number; oldest: Date | string | null }>(
    `SELECT count(*) AS depth,
            min(next_attempt_at) FILTER (WHERE next_attempt_at <= $1) AS oldest
       FROM webhook_deliveries WHERE status = 'pending'`,
    [now],
  );
  const oldest = row?.oldest == null ? null : new Date(row.oldest).getTime();
  return {
    depth: Number(row?.depth ?? 0),
    oldestDueSeconds: oldest === null ? 0 : Math.max(0, (now.getTime() - oldest) / 1000),
  };
}
