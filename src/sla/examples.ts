/**
 * Examples in the API reference, computed as the server computes them: the SLA of the account of
 * the accounts feature's examples (Business in October 2026, Enterprise with 99.9 % since
 * 2 November) and the public status, both on 22 November 2026 at 10:15 UTC.
 */

/** November so far: 6,171 intervals, 12 of them in an announced maintenance window. */
export const SLA_MONTH_EXAMPLE = {
  month: '2026-11',
  measured_until: '2026-11-22T10:15:00.000Z',
  uptime_percent: 99.9825,
  intervals: 6159,
  excluded: { maintenance: 12, own_reasons: 0 },
  credit_percent_if_closed_now: 0,
  down: [
    {
      start: '2026-11-15T02:05:00.000Z',
      end: '2026-11-15T02:10:00.000Z',
      error_rate_percent: 5.59,
      reason: 'errors',
      served: 152,
      failed: 9,
    },
    {
      start: '2026-11-15T02:10:00.000Z',
      end: '2026-11-15T02:15:00.000Z',
      error_rate_percent: 1.9867,
      reason: 'errors',
      served: 148,
      failed: 3,
    },
    {
      start: '2026-11-18T14:40:00.000Z',
      end: '2026-11-18T14:45:00.000Z',
      error_rate_percent: 100,
      reason: 'probe_failed',
      served: 0,
      failed: 0,
    },
  ],
};

/** GET /api/v1/sla: October was closed on Business (measured from the subscription on 5 October). */
export const SLA_EXAMPLE = {
  plan: 'enterprise',
  target_percent: 99.9,
  credit_bands: [
    { below: 99.9, percent: 10 },
    { below: 99, percent: 25 },
    { below: 95, percent: 100 },
  ],
  current_month: SLA_MONTH_EXAMPLE,
  months: [
    {
      month: '2026-10',
      uptime_percent: 100,
      target_percent: 99.5,
      intervals: 7675,
      excluded_intervals: 0,
      down_intervals: 0,
      fee_cents: 19900,
      credit_percent: 0,
      credit_cents: 0,
    },
  ],
};

const DAY_MS = 86_400_000;
/** Days of the status below that were not whole: their uptime and minutes down. */
const IMPERFECT_DAYS: Record<string, [number, number]> = {
  '2026-11-15': [99.99, 0],
  '2026-11-18': [99.653, 5],
};

/** GET /api/v1/status: 90 days, two of them with failures, an announced maintenance ahead. */
export const STATUS_EXAMPLE = {
  generated_at: '2026-11-22T10:15:00.000Z',
  status: 'operational',
  components: [
    { id: 'api', name: 'API', status: 'operational' },
    { id: 'releases', name: 'Data releases', status: 'operational' },
    { id: 'webhooks', name: 'Webhooks', status: 'operational' },
    { id: 'exports', name: 'Exports', status: 'operational' },
  ],
  uptime: {
    days: 90,
    overall_percent: 99.996,
    daily: Array.from({ length: 90 }, (_, i) => {
      const date = new Date(Date.parse('2026-08-25') + i * DAY_MS).toISOString().slice(0, 10);
      const [uptime, down] = IMPERFECT_DAYS[date] ?? [100, 0];
      return { date, uptime_percent: uptime, down_minutes: down };
    }),
  },
  incidents: [
    {
      id: 'inc_Rk2mW8vQx0TzLp4s',
      title: 'Health probe failing from one region',
      component: 'api',
      status: 'resolved',
      created_at: '2026-11-18T14:42:10.000Z',
      resolved_at: '2026-11-18T15:20:33.000Z',
      updates: [
        {
          status: 'investigating',
          message: 'The external probe reports failures; we are looking into it.',
          at: '2026-11-18T14:42:10.000Z',
        },
        {
          status: 'resolved',
          message: 'A load balancer node was replaced; every check has passed since 14:45 UTC.',
          at: '2026-11-18T15:20:33.000Z',
        },
      ],
    },
  ],
  maintenance: [
    {
      id: 'mnt_b7Jd0Qe9SfXw3Hn1',
      title: 'Database upgrade',
      starts_at: '2026-11-29T02:00:00.000Z',
      ends_at: '2026-11-29T03:00:00.000Z',
      announced_at: '2026-11-20T09:00:00.000Z',
      excluded_from_sla: true,
    },
  ],
};
