import type { UsageQuota, UsageRow } from '../usage/index.js';

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

export const STATUS_CLASSES = ['2xx', '4xx', '429', '5xx', 'other'] as const;
export type StatusClass = (typeof STATUS_CLASSES)[number];
export type ClassCounts = Record<StatusClass, number>;

/** 429 apart from the other 4xx: "I hit my limit" is a different story from "I sent bad input". */
export function statusClass(status: number): StatusClass {
  if (status === 429) return '429';
  if (status >= 200 && status < 300) return '2xx';
  if (status >= 400 && status < 500) return '4xx';
  if (status >= 500 && status < 600) return '5xx';
  return 'other';
}

function emptyCounts(): ClassCounts {
  return { '2xx': 0, '4xx': 0, '429': 0, '5xx': 0, other: 0 };
}

export interface WindowSummary {
  label: string;
  total: number;
  byClass: ClassCounts;
  /** Share of requests answered 4xx, 429 or 5xx; null without requests. */
  errorRate: number | null;
}

export function summarize(label: string, rows: readonly UsageRow[], from: number): WindowSummary {
  const byClass = emptyCounts();
  let total = 0;
  for (const r of rows) {
    if (r.hour < from) continue;
    byClass[statusClass(r.status)] += r.count;
    total += r.count;
  }
  const errors = byClass['4xx'] + byClass['429'] + byClass['5xx'];
  return { label, total, byClass, errorRate: total === 0 ? null : errors / total };
}

export interface SeriesPoint {
  start: number;
  byClass: ClassCounts;
}

/** Counts per bucket (hour or day, UTC) and status class over [from, to). */
export function classSeries(
  rows: readonly UsageRow[],
  from: number,
  to: number,
  step: number,
): SeriesPoint[] {
  const points: SeriesPoint[] = [];
  for (let t = from; t < to; t += step) points.push({ start: t, byClass: emptyCounts() });
  for (const r of rows) {
    if (r.hour < from || r.hour >= to) continue;
    const point = points[Math.floor((r.hour - from) / step)];
    if (point !== undefined) point.byClass[statusClass(r.status)] += r.count;
  }
  return points;
}

export interface EndpointSummary {
  endpoint: string;
  total: number;
  errors: number;
}

export function topEndpoints(
  rows: readonly UsageRow[],
  from: number,
  limit: number,
): EndpointSummary[] {
  const by = new Map<string, EndpointSummary>();
  for (const r of rows) {
    if (r.hour < from) continue;
    const entry = by.get(r.endpoint) ?? { endpoint: r.endpoint, total: 0, errors: 0 };
    entry.total += r.count;
    if (r.status >= 400) entry.errors += r.count;
    by.set(r.endpoint, entry);
  }
  return [...by.values()]
    .sort((a, b) => b.total - a.total || a.endpoint.localeCompare(b.endpoint))
    .slice(0, limit);
}

export type Projection =
  | { kind: 'unlimited' }
  | { kind: 'reached' }
  | { kind: 'idle' }
  | { kind: 'before-reset'; at: number; pacePerHour: number }
  | { kind: 'after-reset'; expectedAtReset: number; pacePerHour: number };

/** Pace is measured over at least this much of the window, so one early burst is not a trend. */
const MIN_ELAPSED = 15 * 60_000;

/**
 * When the quota runs out at the pace of the window so far (requests used divided by the time
 * since the window began): before the reset, or not (then how many are expected by the reset).
 */
export function projectQuota(quota: UsageQuota, now: number): Projection {
  if (quota.limit === null) return { kind: 'unlimited' };
  if (quota.remaining <= 0) return { kind: 'reached' };
  if (quota.used === 0) return { kind: 'idle' };
  const resetAt = Date.parse(quota.resets_at);
  const windowStart = resetAt - (quota.window === 'day' ? DAY : HOUR);
  const elapsed = Math.max(now - windowStart, MIN_ELAPSED);
  const pace = quota.used / elapsed;
  const pacePerHour = Math.round(pace * HOUR);
  const at = now + Math.ceil(quota.remaining / pace);
  if (at < resetAt) return { kind: 'before-reset', at, pacePerHour };
  return {
    kind: 'after-reset',
    expectedAtReset: Math.round(quota.used + pace * (resetAt - now)),
    pacePerHour,
  };
}

export interface Overview {
  windows: WindowSummary[];
  hourly: SeriesPoint[];
  daily: SeriesPoint[];
  endpoints: EndpointSummary[];
  projection: Projection;
}

/** The hour-aligned 24 hours and the 30 UTC days (today included) the overview shows. */
export function overviewRanges(now: number): {
  hours: { from: number; to: number };
  days: { from: number; to: number };
} {
  const hourEnd = Math.floor(now / HOUR) * HOUR + HOUR;
  const dayEnd = Math.floor(now / DAY) * DAY + DAY;
  return {
    hours: { from: hourEnd - DAY, to: hourEnd },
    days: { from: dayEnd - 30 * DAY, to: dayEnd },
  };
}

/**
 * Everything the overview shows: `hourly` holds the last 24 hours per hour and status, `daily`
 * the last 30 UTC days per day, endpoint and status (see overviewRanges).
 */
export function overview(
  hourly: readonly UsageRow[],
  daily: readonly UsageRow[],
  quota: UsageQuota,
  now: number,
): Overview {
  const { hours, days } = overviewRanges(now);
  return {
    windows: [
      summarize('Last 24 hours', hourly, hours.from),
      // Days are UTC days, today included, as in the daily chart and the API's usage report.
      summarize('Last 7 days', daily, days.to - 7 * DAY),
      summarize('Last 30 days', daily, days.from),
    ],
    hourly: classSeries(hourly, hours.from, hours.to, HOUR),
    daily: classSeries(daily, days.from, days.to, DAY),
    endpoints: topEndpoints(daily, days.from, 5),
    projection: projectQuota(quota, now),
  };
}

export type Breakdown = 'endpoint' | 'key' | 'status' | 'class';
export const BREAKDOWNS: readonly Breakdown[] = ['class', 'status', 'endpoint', 'key'];

export interface UsageTable {
  from: number;
  to: number;
  step: number;
  breakdown: Breakdown;
  /** Column labels, busiest first; the rest after MAX_GROUPS are summed under "other". */
  groups: string[];
  rows: { start: number; counts: number[]; total: number }[];
  totals: number[];
  total: number;
}

const MAX_GROUPS = 8;

/**
 * The usage page's table (and chart, and CSV): one row per bucket, one column per group of the
 * chosen breakdown. `label` names a group (a key's name instead of its id).
 */
export function usageTable(
  rows: readonly UsageRow[],
  options: { from: number; to: number; step: number; breakdown: Breakdown },
  label: (breakdown: Breakdown, value: string) => string,
): UsageTable {
  const { from, to, step, breakdown } = options;
  const groupOf = (r: UsageRow): string => {
    switch (breakdown) {
      case 'endpoint':
        return r.endpoint;
      case 'key':
        return label('key', r.keyId);
      case 'status':
        return String(r.status);
      case 'class':
        return statusClass(r.status);
    }
  };
  const inRange = rows.filter((r) => r.hour >= from && r.hour < to);
  const sums = new Map<string, number>();
  for (const r of inRange) sums.set(groupOf(r), (sums.get(groupOf(r)) ?? 0) + r.count);
  let groups = [...sums.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([g]) => g);
  if (breakdown === 'class') groups = STATUS_CLASSES.filter((c) => sums.has(c));
  const overflow = groups.length > MAX_GROUPS;
  const shown = overflow ? groups.slice(0, MAX_GROUPS - 1) : groups;
  const columns = overflow ? [...shown, 'other'] : shown;
  const index = new Map(shown.map((g, i) => [g, i]));
  const table: UsageTable['rows'] = [];
  for (let t = from; t < to; t += step)
    table.push({ start: t, counts: columns.map(() => 0), total: 0 });
  const totals = columns.map(() => 0);
  let total = 0;
  for (const r of inRange) {
    const row = table[Math.floor((r.hour - from) / step)];
    if (row === undefined) continue;
    const column = index.get(groupOf(r)) ?? columns.length - 1;
    row.counts[column] = (row.counts[column] ?? 0) + r.count;
    row.total += r.count;
    totals[column] = (totals[column] ?? 0) + r.count;
    total += r.count;
  }
  return { from, to, step, breakdown, groups: columns, rows: table, totals, total };
}

/** RFC 4180 CSV of exactly the table shown: the bucket start (UTC), one column per group, total. */
export function usageCsv(table: UsageTable): string {
  // A leading = + - @ would make a spreadsheet evaluate a key's name as a formula.
  const cell = (raw: string) => {
    const value = /^[=+\-@\t\r]/.test(raw) ? `'${raw}` : raw;
    return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
  };
  const lines = [['start_utc', ...table.groups, 'total'].map(cell).join(',')];
  for (const row of table.rows)
    lines.push([new Date(row.start).toISOString(), ...row.counts, row.total].join(','));
  return `${lines.join('\r\n')}\r\n`;
}
