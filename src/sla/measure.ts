/**
 * The measurement rule of docs/sla.md as pure arithmetic: what the month's intervals were,
 * which were down, which are excluded, and the uptime. No I/O; the service loads the inputs.
 */

export const INTERVAL_MS = 5 * 60_000;
/** Maintenance counts as excluded only when announced at least this long before it starts. */
export const MAINTENANCE_NOTICE_MS = 5 * 86_400_000;
/** At most this much announced maintenance is excluded per month. */
export const MAINTENANCE_CAP_MS = 4 * 3_600_000;
/** A request not answered within this long counts as failed. */
export const FAILED_AFTER_MS = 30_000;

/** The UTC calendar month 'YYYY-MM' containing `at`. */
export function monthOf(at: number): string {
  return new Date(at).toISOString().slice(0, 7);
}

/** Start and end (exclusive) of a 'YYYY-MM' month in UTC; undefined for anything else. */
export function monthRange(month: string): { start: number; end: number } | undefined {
  const m = /^(\d{4})-(0[1-9]|1[0-2])$/.exec(month);
  if (m === null) return undefined;
  const year = Number(m[1]);
  const index = Number(m[2]) - 1;
  return { start: Date.UTC(year, index, 1), end: Date.UTC(year, index + 1, 1) };
}

/** "November 2026" for 'YYYY-MM'. */
export function monthName(month: string): string {
  const range = monthRange(month);
  if (range === undefined) return month;
  return new Date(range.start).toLocaleString('en-GB', {
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  });
}

export function intervalStart(at: number): number {
  return Math.floor(at / INTERVAL_MS) * INTERVAL_MS;
}

/** How a request's status counts: failed, served (counted, not failed), refused or not at all. */
export function statusClass(status: number, ms = 0): 'served' | 'failed' | 'refused' | undefined {
  if (ms >= FAILED_AFTER_MS) return 'failed';
  if (status === 500 || status === 502 || status === 503 || status === 504) return 'failed';
  if (status === 429 || status === 402) return 'refused';
  if (status >= 200 && status < 400) return 'served';
  return undefined;
}

export interface IntervalCounts {
  served: number;
  failed: number;
  refused: number;
}

export interface MaintenanceWindow {
  start: number;
  end: number;
  announcedAt: number;
}

export interface MeasureInputs {
  /** First and end (exclusive) of the measured span, multiples of INTERVAL_MS. */
  from: number;
  until: number;
  /** The account's requests by interval start (absent: none). */
  counts: ReadonlyMap<number, IntervalCounts>;
  /** Interval starts with at least one heartbeat of any instance. */
  alive: ReadonlySet<number>;
  /** Heartbeats are judged only from here on (the first heartbeat ever recorded). */
  heartbeatsFrom: number | null;
  /** Probe results by interval start, summed over probers. */
  probes: ReadonlyMap<number, { ok: number; failed: number }>;
  maintenance: readonly MaintenanceWindow[];
}

export type DownReason = 'no_instance_alive' | 'probe_failed' | 'errors';

export interface DownInterval {
  start: number;
  /** Failed ÷ counted, in percent (100 for an outage). */
  errorRate: number;
  reason: DownReason;
  served: number;
  failed: number;
}

export interface Measurement {
  intervals: number;
  excluded: { maintenance: number; ownReasons: number };
  down: DownInterval[];
  /** 100 − the average interval error rate, unrounded. */
  uptime: number;
}

/** The interval starts inside qualifying maintenance, at most 4 hours of them per month. */
export function maintenanceIntervals(windows: readonly MaintenanceWindow[]): Set<number> {
  const excluded = new Set<number>();
  const byMonth = new Map<string, number>();
  const qualifying = windows
    .filter((w) => w.announcedAt <= w.start - MAINTENANCE_NOTICE_MS)
    .sort((a, b) => a.start - b.start);
  for (const w of qualifying) {
    // Whole intervals inside the window only: a partly covered interval is measured.
    for (let t = Math.ceil(w.start / INTERVAL_MS) * INTERVAL_MS; t + INTERVAL_MS <= w.end;) {
      const month = monthOf(t);
      const used = byMonth.get(month) ?? 0;
      if (used + INTERVAL_MS <= MAINTENANCE_CAP_MS && !excluded.has(t)) {
        byMonth.set(month, used + INTERVAL_MS);
        excluded.add(t);
      }
      t += INTERVAL_MS;
    }
  }
  return excluded;
}

/** True when nothing was serving in the interval: no heartbeat, or the probe failed throughout. */
export function outageOf(
  start: number,
  inputs: Pick<MeasureInputs, 'alive' | 'heartbeatsFrom' | 'probes'>,
): DownReason | undefined {
  if (inputs.heartbeatsFrom !== null && start >= inputs.heartbeatsFrom && !inputs.alive.has(start))
    return 'no_instance_alive';
  const probe = inputs.probes.get(start);
  if (probe !== undefined && probe.ok === 0 && probe.failed > 0) return 'probe_failed';
  return undefined;
}

export function measure(inputs: MeasureInputs): Measurement {
  const maintenance = maintenanceIntervals(inputs.maintenance);
  let intervals = 0;
  let rateSum = 0;
  const excluded = { maintenance: 0, ownReasons: 0 };
  const down: DownInterval[] = [];
  for (let t = inputs.from; t < inputs.until; t += INTERVAL_MS) {
    if (maintenance.has(t)) {
      excluded.maintenance++;
      continue;
    }
    const c = inputs.counts.get(t);
    const served = c?.served ?? 0;
    const failed = c?.failed ?? 0;
    const outage = outageOf(t, inputs);
    if (outage !== undefined) {
      intervals++;
      rateSum += 100;
      down.push({ start: t, errorRate: 100, reason: outage, served, failed });
      continue;
    }
    if (c !== undefined && c.refused > 0 && served + failed === 0) {
      // Only the account's own refusals (over quota, unpaid): neither up nor down.
      excluded.ownReasons++;
      continue;
    }
    intervals++;
    if (failed > 0) {
      const rate = (failed / (served + failed)) * 100;
      rateSum += rate;
      down.push({ start: t, errorRate: rate, reason: 'errors', served, failed });
    }
  }
  return { intervals, excluded, down, uptime: intervals === 0 ? 100 : 100 - rateSum / intervals };
}

export interface CreditBand {
  /** Uptime strictly below this percentage… */
  below: number;
  /** …earns this percentage of the month's fee. */
  percent: number;
}

/** Business (99.5 %): Google Cloud Functions' bands. */
export function businessBands(target: number): CreditBand[] {
  return [
    { below: target, percent: 10 },
    { below: 99.0, percent: 25 },
    { below: 95.0, percent: 50 },
  ];
}

/** Enterprise (99.9 % or the contract's figure): AWS S3's bands. */
export function enterpriseBands(target: number): CreditBand[] {
  return [
    { below: target, percent: 10 },
    { below: 99.0, percent: 25 },
    { below: 95.0, percent: 100 },
  ];
}

/** The highest percentage among the bands the uptime falls below (0 when none). */
export function creditPercent(uptime: number, bands: readonly CreditBand[]): number {
  return bands.reduce((best, b) => (uptime < b.below ? Math.max(best, b.percent) : best), 0);
}

/** The credit in cents: the percentage of the fee, rounded to the cent, never above the fee. */
export function creditCents(feeCents: number, percent: number): number {
  return Math.min(feeCents, Math.round((feeCents * percent) / 100));
}

/** Uptime as printed: two decimals, rounded down so that a miss never prints as the target. */
export function formatPercent(value: number): string {
  const floored = Math.floor(value * 100 + 1e-9) / 100;
  return `${floored.toFixed(2).replace(/\.?0+$/, '')} %`;
}

/** Parses "99.95:10,99:25,95:100" (uptime below : percent of the fee). */
export function parseBands(text: string): CreditBand[] | string {
  const bands: CreditBand[] = [];
  for (const part of text.split(',')) {
    const m = /^\s*(\d+(?:\.\d+)?)\s*:\s*(\d+)\s*$/.exec(part);
    if (m === null) return `"${part}" is not BELOW:PERCENT (e.g. 99.9:10)`;
    const below = Number(m[1]);
    const percent = Number(m[2]);
    if (!(below > 0 && below <= 100)) return `${below} is not an uptime percentage`;
    if (!(percent > 0 && percent <= 100))
      return `${percent} is not a percentage of the fee (1-100)`;
    bands.push({ below, percent });
  }
  return bands.sort((a, b) => b.below - a.below);
}
