import { jsonColumn, type Queryable } from '../store/index.js';
import type { CreditBand, IntervalCounts, MaintenanceWindow } from './measure.js';

const iso = (at: number): string => new Date(at).toISOString();
const ms = (v: Date | string): number => new Date(v).getTime();

export interface CountRow extends IntervalCounts {
  accountId: string;
  start: number;
}

/** Adds counts to the stored ones (several instances write the same interval). */
export async function addCounts(db: Queryable, rows: readonly CountRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.query(
    `INSERT INTO sla_intervals (account_id, interval_start, served, failed, refused)
     SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::bigint[], $4::bigint[], $5::bigint[])
     ON CONFLICT (account_id, interval_start) DO UPDATE SET
       served = sla_intervals.served + EXCLUDED.served,
       failed = sla_intervals.failed + EXCLUDED.failed,
       refused = sla_intervals.refused + EXCLUDED.refused`,
    [
      rows.map((r) => r.accountId),
      rows.map((r) => iso(r.start)),
      rows.map((r) => r.served),
      rows.map((r) => r.failed),
      rows.map((r) => r.refused),
    ],
  );
}

export async function countsOf(
  db: Queryable,
  accountId: string,
  from: number,
  until: number,
): Promise<Map<number, IntervalCounts>> {
  const rows = await db.query<{
    interval_start: Date | string;
    served: string | number;
    failed: string | number;
    refused: string | number;
  }>(
    `SELECT interval_start, served, failed, refused FROM sla_intervals
     WHERE account_id = $1 AND interval_start >= $2 AND interval_start < $3`,
    [accountId, iso(from), iso(until)],
  );
  return new Map(
    rows.map((r) => [
      ms(r.interval_start),
      { served: Number(r.served), failed: Number(r.failed), refused: Number(r.refused) },
    ]),
  );
}

/** Counts of every account summed per interval (the status page's service-wide figure). */
export async function serviceCounts(
  db: Queryable,
  from: number,
  until: number,
): Promise<Map<number, IntervalCounts>> {
  const rows = await db.query<{
    interval_start: Date | string;
    served: string | number;
    failed: string | number;
  }>(
    `SELECT interval_start, sum(served) AS served, sum(failed) AS failed FROM sla_intervals
     WHERE interval_start >= $1 AND interval_start < $2 GROUP BY interval_start`,
    [iso(from), iso(until)],
  );
  return new Map(
    rows.map((r) => [
      ms(r.interval_start),
      { served: Number(r.served), failed: Number(r.failed), refused: 0 },
    ]),
  );
}

export interface Beat {
  start: number;
  beats: number;
  lastAt: number;
}

export async function addHeartbeats(
  db: Queryable,
  instanceId: string,
  beats: readonly Beat[],
): Promise<void> {
  if (beats.length === 0) return;
  await db.query(
    `INSERT INTO sla_heartbeats (interval_start, instance_id, beats, last_at)
     SELECT s, $1, b, l FROM unnest($2::timestamptz[], $3::int[], $4::timestamptz[]) AS u (s, b, l)
     ON CONFLICT (interval_start, instance_id) DO UPDATE SET
       beats = sla_heartbeats.beats + EXCLUDED.beats,
       last_at = GREATEST(sla_heartbeats.last_at, EXCLUDED.last_at)`,
    [
      instanceId,
      beats.map((b) => iso(b.start)),
      beats.map((b) => b.beats),
      beats.map((b) => iso(b.lastAt)),
    ],
  );
}

export async function aliveIntervals(
  db: Queryable,
  from: number,
  until: number,
): Promise<Set<number>> {
  const rows = await db.query<{ interval_start: Date | string }>(
    `SELECT DISTINCT interval_start FROM sla_heartbeats
     WHERE interval_start >= $1 AND interval_start < $2`,
    [iso(from), iso(until)],
  );
  return new Set(rows.map((r) => ms(r.interval_start)));
}

/** Another instance that beat at or after `since` (the one with the latest beat), or null. */
export async function otherInstanceSince(
  db: Queryable,
  instanceId: string,
  since: number,
): Promise<string | null> {
  const rows = await db.query<{ instance_id: string }>(
    `SELECT instance_id FROM sla_heartbeats
     WHERE instance_id <> $1 AND last_at >= $2 ORDER BY last_at DESC LIMIT 1`,
    [instanceId, iso(since)],
  );
  return rows[0]?.instance_id ?? null;
}

/** The first interval with a heartbeat: outages are judged from there on. */
export async function firstHeartbeat(db: Queryable): Promise<number | null> {
  const rows = await db.query<{ first: Date | string | null }>(
    'SELECT min(interval_start) AS first FROM sla_heartbeats',
  );
  const first = rows[0]?.first ?? null;
  return first === null ? null : ms(first);
}

/** The latest heartbeat of any instance (the status page's "API" state). */
export async function lastHeartbeat(db: Queryable): Promise<number | null> {
  const rows = await db.query<{ last: Date | string | null }>(
    'SELECT max(last_at) AS last FROM sla_heartbeats',
  );
  const last = rows[0]?.last ?? null;
  return last === null ? null : ms(last);
}

export async function addProbeResult(
  db: Queryable,
  r: { prober: string; at: number; start: number; ok: boolean; error: string | null },
): Promise<void> {
  await db.query(
    `INSERT INTO sla_probes (interval_start, prober, ok, failed, last_at, last_error)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (interval_start, prober) DO UPDATE SET
       ok = sla_probes.ok + EXCLUDED.ok, failed = sla_probes.failed + EXCLUDED.failed,
       last_at = GREATEST(sla_probes.last_at, EXCLUDED.last_at),
       last_error = COALESCE(EXCLUDED.last_error, sla_probes.last_error)`,
    [iso(r.start), r.prober, r.ok ? 1 : 0, r.ok ? 0 : 1, iso(r.at), r.error],
  );
}

export async function probesOf(
  db: Queryable,
  from: number,
  until: number,
): Promise<Map<number, { ok: number; failed: number }>> {
  const rows = await db.query<{
    interval_start: Date | string;
    ok: string | number;
    failed: string | number;
  }>(
    `SELECT interval_start, sum(ok) AS ok, sum(failed) AS failed FROM sla_probes
     WHERE interval_start >= $1 AND interval_start < $2 GROUP BY interval_start`,
    [iso(from), iso(until)],
  );
  return new Map(
    rows.map((r) => [ms(r.interval_start), { ok: Number(r.ok), failed: Number(r.failed) }]),
  );
}

export async function maintenanceBetween(
  db: Queryable,
  from: number,
  until: number,
): Promise<(MaintenanceWindow & { id: string; title: string })[]> {
  const rows = await db.query<{
    id: string;
    title: string;
    starts_at: Date | string;
    ends_at: Date | string;
    announced_at: Date | string;
  }>(
    `SELECT id, title, starts_at, ends_at, announced_at FROM status_maintenance
     WHERE ends_at > $1 AND starts_at < $2 ORDER BY starts_at, id`,
    [iso(from), iso(until)],
  );
  return rows.map((r) => ({
    id: r.id,
    title: r.title,
    start: ms(r.starts_at),
    end: ms(r.ends_at),
    announcedAt: ms(r.announced_at),
  }));
}

export async function insertMaintenance(
  db: Queryable,
  m: { id: string; title: string; start: number; end: number; announcedAt: number },
): Promise<void> {
  await db.query(
    'INSERT INTO status_maintenance (id, title, starts_at, ends_at, announced_at) VALUES ($1, $2, $3, $4, $5)',
    [m.id, m.title, iso(m.start), iso(m.end), iso(m.announcedAt)],
  );
}

export interface MonthRow {
  month: string;
  plan: string;
  targetPercent: number;
  uptimePercent: number;
  intervals: number;
  excludedIntervals: number;
  downIntervals: number;
  feeCents: number;
  creditPercent: number;
  creditCents: number;
  computedAt: number;
}

/** Records a closed month; false when it was already recorded (by this or another instance). */
export async function insertMonth(db: Queryable, accountId: string, m: MonthRow): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO sla_months (account_id, month, plan, target_percent, uptime_percent, intervals,
       excluded_intervals, down_intervals, fee_cents, credit_percent, credit_cents, computed_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
     ON CONFLICT (account_id, month) DO NOTHING RETURNING account_id`,
    [
      accountId,
      `${m.month}-01`,
      m.plan,
      m.targetPercent,
      m.uptimePercent,
      m.intervals,
      m.excludedIntervals,
      m.downIntervals,
      m.feeCents,
      m.creditPercent,
      m.creditCents,
      iso(m.computedAt),
    ],
  );
  return rows.length === 1;
}

export async function monthsOf(db: Queryable, accountId: string): Promise<MonthRow[]> {
  const rows = await db.query<{
    month: string;
    plan: string;
    target_percent: string | number;
    uptime_percent: string | number;
    intervals: number;
    excluded_intervals: number;
    down_intervals: number;
    fee_cents: string | number;
    credit_percent: number;
    credit_cents: string | number;
    computed_at: Date | string;
  }>(
    `SELECT to_char(month, 'YYYY-MM') AS month, plan, target_percent, uptime_percent, intervals,
       excluded_intervals, down_intervals, fee_cents, credit_percent, credit_cents, computed_at
     FROM sla_months WHERE account_id = $1 ORDER BY month DESC`,
    [accountId],
  );
  return rows.map((r) => ({
    month: r.month,
    plan: r.plan,
    targetPercent: Number(r.target_percent),
    uptimePercent: Number(r.uptime_percent),
    intervals: r.intervals,
    excludedIntervals: r.excluded_intervals,
    downIntervals: r.down_intervals,
    feeCents: Number(r.fee_cents),
    creditPercent: r.credit_percent,
    creditCents: Number(r.credit_cents),
    computedAt: ms(r.computed_at),
  }));
}

export async function contractBands(
  db: Queryable,
  accountId: string,
): Promise<CreditBand[] | undefined> {
  const rows = await db.query<{ bands: CreditBand[] | string }>(
    'SELECT bands FROM sla_contract_bands WHERE account_id = $1',
    [accountId],
  );
  return rows[0] === undefined ? undefined : jsonColumn(rows[0].bands);
}

export async function setContractBands(
  db: Queryable,
  accountId: string,
  bands: readonly CreditBand[] | null,
  at: number,
): Promise<void> {
  if (bands === null) {
    await db.query('DELETE FROM sla_contract_bands WHERE account_id = $1', [accountId]);
    return;
  }
  await db.query(
    `INSERT INTO sla_contract_bands (account_id, bands, updated_at) VALUES ($1, $2, $3)
     ON CONFLICT (account_id) DO UPDATE SET bands = EXCLUDED.bands, updated_at = EXCLUDED.updated_at`,
    [accountId, JSON.stringify(bands), iso(at)],
  );
}

/** Accounts on the plans with an SLA (Business, Enterprise): the ones month close measures. */
export async function slaAccounts(db: Queryable, planIds: readonly string[]): Promise<string[]> {
  const rows = await db.query<{ id: string }>(
    'SELECT id FROM accounts WHERE plan = ANY ($1) ORDER BY id',
    [planIds],
  );
  return rows.map((r) => r.id);
}

/** When the account's subscription started (its billing anchor); 0 when it has none. */
export async function subscriptionStart(db: Queryable, accountId: string): Promise<number> {
  const rows = await db.query<{ anchor_at: Date | string }>(
    'SELECT anchor_at FROM subscriptions WHERE account_id = $1',
    [accountId],
  );
  return rows[0] === undefined ? 0 : ms(rows[0].anchor_at);
}

export interface IncidentRow {
  id: string;
  title: string;
  component: string;
  status: string;
  created_at: Date | string;
  resolved_at: Date | string | null;
}

export interface IncidentUpdateRow {
  incident_id: string;
  status: string;
  message: string;
  created_at: Date | string;
}

/** Open incidents and those opened since `since`, newest first, with their updates (newest first). */
export async function incidentsSince(
  db: Queryable,
  since: number,
): Promise<{ incidents: IncidentRow[]; updates: IncidentUpdateRow[] }> {
  const incidents = await db.query<IncidentRow>(
    `SELECT id, title, component, status, created_at, resolved_at FROM status_incidents
     WHERE resolved_at IS NULL OR created_at >= $1 ORDER BY created_at DESC, id`,
    [iso(since)],
  );
  if (incidents.length === 0) return { incidents, updates: [] };
  const updates = await db.query<IncidentUpdateRow>(
    `SELECT incident_id, status, message, created_at FROM status_incident_updates
     WHERE incident_id = ANY ($1) ORDER BY id DESC`,
    [incidents.map((r) => r.id)],
  );
  return { incidents, updates };
}

export async function insertIncident(
  tx: Queryable,
  i: { id: string; title: string; component: string; status: string; at: number },
): Promise<void> {
  await tx.query(
    'INSERT INTO status_incidents (id, title, component, status, created_at) VALUES ($1, $2, $3, $4, $5)',
    [i.id, i.title, i.component, i.status, iso(i.at)],
  );
}

/** Sets an incident's status; `resolved` also stamps when. */
export async function setIncidentStatus(
  tx: Queryable,
  id: string,
  status: string,
  at: number,
): Promise<void> {
  await tx.query(
    `UPDATE status_incidents SET status = $2,
       resolved_at = CASE WHEN $2 = 'resolved' THEN $3::timestamptz ELSE NULL END
     WHERE id = $1`,
    [id, status, iso(at)],
  );
}

export async function insertIncidentUpdate(
  tx: Queryable,
  u: { id: string; status: string; message: string; at: number },
): Promise<void> {
  await tx.query(
    'INSERT INTO status_incident_updates (incident_id, status, message, created_at) VALUES ($1, $2, $3, $4)',
    [u.id, u.status, u.message, iso(u.at)],
  );
}
