import { AppError } from '../errors/index.js';
import type { Clock } from '../lib/clock.js';
import { prefixedId } from '../lib/ids.js';
import type { Db, Queryable } from '../store/index.js';
import { INTERVAL_MS, MAINTENANCE_NOTICE_MS, outageOf } from './measure.js';
import * as repo from './repo.js';

export const COMPONENTS = ['api', 'releases', 'webhooks', 'exports'] as const;
export type Component = (typeof COMPONENTS)[number];
export const COMPONENT_NAMES: Record<Component, string> = {
  api: 'API',
  releases: 'Data releases',
  webhooks: 'Webhooks',
  exports: 'Exports',
};
export const INCIDENT_STATUSES = ['investigating', 'identified', 'monitoring', 'resolved'] as const;
export type IncidentStatus = (typeof INCIDENT_STATUSES)[number];

const DAY_MS = 86_400_000;
export const STATUS_DAYS = 90;
/** The status document is rebuilt at most this often per instance. */
const STATUS_CACHE_MS = 30_000;
/** The API counts as down when no instance has beaten for this long. */
const STALE_HEARTBEAT_MS = 3 * 60_000;

/** Records a service-wide webhook event in the caller's transaction (status.*). */
export type ServiceEventPublisher = (
  tx: Queryable,
  event: { type: 'status.incident' | 'status.maintenance'; data: unknown },
) => Promise<void>;

export interface Incident {
  id: string;
  title: string;
  component: Component;
  status: IncidentStatus;
  created_at: string;
  resolved_at: string | null;
  updates: { status: string; message: string; at: string }[];
}

export interface StatusDocument {
  generated_at: string;
  status: 'operational' | 'degraded' | 'outage' | 'maintenance';
  components: { id: Component; name: string; status: string }[];
  uptime: {
    days: number;
    overall_percent: number | null;
    daily: { date: string; uptime_percent: number | null; down_minutes: number }[];
  };
  incidents: Incident[];
  maintenance: {
    id: string;
    title: string;
    starts_at: string;
    ends_at: string;
    announced_at: string;
    excluded_from_sla: boolean;
  }[];
}

const iso = (at: number): string => new Date(at).toISOString();

function invalid(name: string, reason: string, allowed?: readonly string[]): AppError {
  return AppError.invalidParams([{ name, reason, ...(allowed === undefined ? {} : { allowed }) }]);
}

async function loadIncidents(db: Queryable, since: number): Promise<Incident[]> {
  const { incidents, updates } = await repo.incidentsSince(db, since);
  return incidents.map((r) => ({
    id: r.id,
    title: r.title,
    component: r.component as Component,
    status: r.status as IncidentStatus,
    created_at: iso(new Date(r.created_at).getTime()),
    resolved_at: r.resolved_at === null ? null : iso(new Date(r.resolved_at).getTime()),
    updates: updates
      .filter((u) => u.incident_id === r.id)
      .map((u) => ({
        status: u.status,
        message: u.message,
        at: iso(new Date(u.created_at).getTime()),
      })),
  }));
}

/** Incidents, maintenance and the public status document. */
export function createStatusService(deps: {
  db: Db;
  clock: Clock;
  publish: ServiceEventPublisher;
}) {
  const { db, clock } = deps;
  let cached: { at: number; doc: StatusDocument } | undefined;

  async function incident(id: string): Promise<Incident> {
    const found = (await loadIncidents(db, 0)).find((i) => i.id === id);
    if (found === undefined) throw new AppError('NOT_FOUND', `There is no incident ${id}.`);
    return found;
  }

  async function addUpdate(
    tx: Queryable,
    id: string,
    status: IncidentStatus,
    message: string,
    now: number,
  ): Promise<void> {
    await repo.insertIncidentUpdate(tx, { id, status, message, at: now });
  }

  async function announce(tx: Queryable, id: string): Promise<Incident> {
    const found = (await loadIncidents(tx, 0)).find((i) => i.id === id)!;
    await deps.publish(tx, { type: 'status.incident', data: found });
    return found;
  }

  return {
    async openIncident(input: {
      title: string;
      component: string;
      status?: string;
      message?: string;
    }): Promise<Incident> {
      const title = input.title.trim();
      if (title === '' || title.length > 200) throw invalid('title', 'must be 1 to 200 characters');
      if (!(COMPONENTS as readonly string[]).includes(input.component))
        throw invalid('component', `unknown component "${input.component}"`, COMPONENTS);
      const status = (input.status ?? 'investigating') as IncidentStatus;
      if (!(INCIDENT_STATUSES as readonly string[]).includes(status) || status === 'resolved')
        throw invalid('status', `"${status}" is not an open status`, INCIDENT_STATUSES.slice(0, 3));
      const now = clock.now();
      const id = prefixedId('inc');
      const result = await db.transaction(async (tx) => {
        await repo.insertIncident(tx, { id, title, component: input.component, status, at: now });
        await addUpdate(tx, id, status, input.message ?? title, now);
        return announce(tx, id);
      });
      cached = undefined;
      return result;
    },

    async updateIncident(id: string, status: string, message: string): Promise<Incident> {
      if (!(INCIDENT_STATUSES as readonly string[]).includes(status))
        throw invalid('status', `unknown status "${status}"`, INCIDENT_STATUSES);
      if (message.trim() === '') throw invalid('message', 'must not be empty');
      const current = await incident(id);
      if (current.status === 'resolved')
        throw invalid('id', `incident ${id} is resolved; open a new one`);
      const now = clock.now();
      const result = await db.transaction(async (tx) => {
        await repo.setIncidentStatus(tx, id, status, now);
        await addUpdate(tx, id, status as IncidentStatus, message.trim(), now);
        return announce(tx, id);
      });
      cached = undefined;
      return result;
    },

    async scheduleMaintenance(input: { title: string; start: string; end: string }) {
      const title = input.title.trim();
      if (title === '' || title.length > 200) throw invalid('title', 'must be 1 to 200 characters');
      const start = Date.parse(input.start);
      const end = Date.parse(input.end);
      if (Number.isNaN(start)) throw invalid('start', 'must be an ISO 8601 date-time');
      if (Number.isNaN(end)) throw invalid('end', 'must be an ISO 8601 date-time');
      if (end <= start) throw invalid('end', 'must be after start');
      const now = clock.now();
      if (start <= now) throw invalid('start', 'must be in the future');
      const m = { id: prefixedId('mnt'), title, start, end, announcedAt: now };
      const view = {
        id: m.id,
        title,
        starts_at: iso(start),
        ends_at: iso(end),
        announced_at: iso(now),
        excluded_from_sla: now <= start - MAINTENANCE_NOTICE_MS,
      };
      await db.transaction(async (tx) => {
        await repo.insertMaintenance(tx, m);
        await deps.publish(tx, { type: 'status.maintenance', data: view });
      });
      cached = undefined;
      return view;
    },

    incident,

    /** The public status document, rebuilt at most every 30 s. */
    async status(): Promise<StatusDocument> {
      const now = clock.now();
      if (cached !== undefined && now - cached.at < STATUS_CACHE_MS && now >= cached.at)
        return cached.doc;
      const doc = await build(now);
      cached = { at: now, doc };
      return doc;
    },
  };

  async function build(now: number): Promise<StatusDocument> {
    const today = Math.floor(now / DAY_MS) * DAY_MS;
    const from = today - (STATUS_DAYS - 1) * DAY_MS;
    const until = Math.floor(now / INTERVAL_MS) * INTERVAL_MS;
    const [counts, alive, heartbeatsFrom, probes, maintenance, incidents, last] = await Promise.all(
      [
        repo.serviceCounts(db, from, until),
        repo.aliveIntervals(db, from, until),
        repo.firstHeartbeat(db),
        repo.probesOf(db, from, until),
        repo.maintenanceBetween(db, from, now + 366 * DAY_MS),
        loadIncidents(db, from),
        repo.lastHeartbeat(db),
      ],
    );
    const daily: StatusDocument['uptime']['daily'] = [];
    let totalIntervals = 0;
    let totalRate = 0;
    for (let day = from; day <= today; day += DAY_MS) {
      let intervals = 0;
      let rateSum = 0;
      let downMinutes = 0;
      for (let t = day; t < Math.min(day + DAY_MS, until); t += INTERVAL_MS) {
        const c = counts.get(t);
        const measured =
          c !== undefined || (heartbeatsFrom !== null && t >= heartbeatsFrom) || probes.has(t);
        if (!measured) continue;
        intervals++;
        const rate =
          outageOf(t, { alive, heartbeatsFrom, probes }) !== undefined
            ? 100
            : c === undefined || c.served + c.failed === 0
              ? 0
              : (c.failed / (c.served + c.failed)) * 100;
        rateSum += rate;
        downMinutes += (rate / 100) * 5;
      }
      totalIntervals += intervals;
      totalRate += rateSum;
      daily.push({
        date: iso(day).slice(0, 10),
        uptime_percent: intervals === 0 ? null : round3(100 - rateSum / intervals),
        down_minutes: Math.round(downMinutes),
      });
    }
    const open = incidents.filter((i) => i.resolved_at === null);
    const inMaintenance = maintenance.some((m) => m.start <= now && now < m.end);
    const apiDown = last !== null && now - last > STALE_HEARTBEAT_MS;
    const components = COMPONENTS.map((id) => {
      const own = open.filter((i) => i.component === id);
      const status =
        id === 'api' && apiDown
          ? 'outage'
          : own.length > 0
            ? 'degraded'
            : inMaintenance
              ? 'maintenance'
              : 'operational';
      return { id, name: COMPONENT_NAMES[id], status };
    });
    const overall = components.some((c) => c.status === 'outage')
      ? 'outage'
      : components.some((c) => c.status === 'degraded')
        ? 'degraded'
        : inMaintenance
          ? 'maintenance'
          : 'operational';
    return {
      generated_at: iso(now),
      status: overall,
      components,
      uptime: {
        days: STATUS_DAYS,
        overall_percent: totalIntervals === 0 ? null : round3(100 - totalRate / totalIntervals),
        daily,
      },
      incidents,
      maintenance: maintenance
        .filter((m) => m.end > now - 7 * DAY_MS)
        .map((m) => ({
          id: m.id,
          title: m.title,
          starts_at: iso(m.start),
          ends_at: iso(m.end),
          announced_at: iso(m.announcedAt),
          excluded_from_sla: m.announcedAt <= m.start - MAINTENANCE_NOTICE_MS,
        })),
    };
  }
}

function round3(v: number): number {
  return Math.floor(v * 1000) / 1000;
}

export type StatusService = ReturnType<typeof createStatusService>;
