import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { AppError } from '../errors/index.js';
import { problemResponses } from '../http/openapi-responses.js';
import type { Clock } from '../lib/clock.js';
import { StringEnum } from '../lib/string-enum.js';
import { assertPlanHas, type Plan, type PlanId } from '../plans/index.js';
import { INTERVAL_MS, monthOf, monthRange, type DownInterval } from './measure.js';
import { SLA_EXAMPLE, SLA_MONTH_EXAMPLE, STATUS_EXAMPLE } from './examples.js';
import type { MonthFigures, SlaService } from './service.js';
import { COMPONENTS, type StatusService } from './status.js';

const time = Type.String({ format: 'date-time' });
const percent = Type.Number({ description: 'Percent, rounded down to 4 decimals.' });

const DownSchema = Type.Object({
  start: time,
  end: time,
  error_rate_percent: percent,
  reason: StringEnum(['no_instance_alive', 'probe_failed', 'errors'] as const),
  served: Type.Integer(),
  failed: Type.Integer(),
});

const MonthSchema = Type.Object({
  month: Type.String({ pattern: '^\\d{4}-\\d{2}$' }),
  uptime_percent: percent,
  target_percent: Type.Number(),
  intervals: Type.Integer({ description: 'Intervals counted in the average.' }),
  excluded_intervals: Type.Integer(),
  down_intervals: Type.Integer(),
  fee_cents: Type.Integer(),
  credit_percent: Type.Integer(),
  credit_cents: Type.Integer(),
});

const BandSchema = Type.Object({ below: Type.Number(), percent: Type.Integer() });

const SoFarSchema = Type.Object(
  {
    month: Type.String(),
    measured_until: time,
    uptime_percent: percent,
    intervals: Type.Integer(),
    excluded: Type.Object({ maintenance: Type.Integer(), own_reasons: Type.Integer() }),
    credit_percent_if_closed_now: Type.Integer(),
    down: Type.Array(DownSchema),
  },
  { examples: [SLA_MONTH_EXAMPLE] },
);

const floor4 = (v: number): number => Math.floor(v * 10_000) / 10_000;

function downView(d: DownInterval) {
  return {
    start: new Date(d.start).toISOString(),
    end: new Date(d.start + INTERVAL_MS).toISOString(),
    error_rate_percent: floor4(d.errorRate),
    reason: d.reason,
    served: d.served,
    failed: d.failed,
  };
}

function soFar(f: MonthFigures, until: number) {
  const m = f.measurement;
  return {
    month: f.month,
    measured_until: new Date(until).toISOString(),
    uptime_percent: floor4(m.uptime),
    intervals: m.intervals,
    excluded: { maintenance: m.excluded.maintenance, own_reasons: m.excluded.ownReasons },
    credit_percent_if_closed_now: f.bands.reduce(
      (best, b) => (m.uptime < b.below ? Math.max(best, b.percent) : best),
      0,
    ),
    down: m.down.map(downView),
  };
}

const StatusSchema = Type.Object(
  {
    generated_at: time,
    status: StringEnum(['operational', 'degraded', 'outage', 'maintenance'] as const),
    components: Type.Array(
      Type.Object({ id: StringEnum(COMPONENTS), name: Type.String(), status: Type.String() }),
    ),
    uptime: Type.Object({
      days: Type.Integer(),
      overall_percent: Type.Union([Type.Number(), Type.Null()]),
      daily: Type.Array(
        Type.Object({
          date: Type.String(),
          uptime_percent: Type.Union([Type.Number(), Type.Null()]),
          down_minutes: Type.Integer(),
        }),
      ),
    }),
    incidents: Type.Array(
      Type.Object({
        id: Type.String(),
        title: Type.String(),
        component: Type.String(),
        status: Type.String(),
        created_at: time,
        resolved_at: Type.Union([time, Type.Null()]),
        updates: Type.Array(
          Type.Object({ status: Type.String(), message: Type.String(), at: time }),
        ),
      }),
    ),
    maintenance: Type.Array(
      Type.Object({
        id: Type.String(),
        title: Type.String(),
        starts_at: time,
        ends_at: time,
        announced_at: time,
        excluded_from_sla: Type.Boolean(),
      }),
    ),
  },
  { $id: 'ServiceStatus', examples: [STATUS_EXAMPLE] },
);

export const slaRoutes: FastifyPluginAsyncTypebox<{
  sla: SlaService;
  status: StatusService;
  clock: Clock;
  plans: Readonly<Record<PlanId, Plan>>;
}> = async (app, { sla, status, clock, plans }) => {
  const hasSla = (p: Plan) => p.slaPercent !== null;

  app.get(
    '/api/v1/sla',
    {
      schema: {
        operationId: 'getSla',
        tags: ['SLA'],
        summary: 'Measured uptime: this month so far, past months with their credits',
        querystring: Type.Object({}, { additionalProperties: false }),
        description:
          'Business and Enterprise. The measurement rule is docs/sla.md: 5-minute intervals per account, an interval’s error rate is failed ÷ counted requests, a total outage counts 100 % for every account. `down` lists this month’s intervals with a non-zero error rate so the arithmetic can be checked.',
        response: {
          200: Type.Object(
            {
              plan: Type.String(),
              target_percent: Type.Number(),
              credit_bands: Type.Array(BandSchema),
              current_month: SoFarSchema,
              months: Type.Array(MonthSchema),
            },
            { examples: [SLA_EXAMPLE] },
          ),
          ...problemResponses(401, 403),
        },
      },
      config: { auth: { access: 'account', scope: 'usage:read' } },
    },
    async (request) => {
      const principal = request.principal;
      assertPlanHas(plans, principal.plan, hasSla, 'The uptime SLA');
      const accountId = principal.accountId as string;
      const now = clock.now();
      const f = await sla.accountMonth(accountId, monthOf(now));
      const months = await sla.months(accountId);
      return {
        plan: principal.plan.id,
        target_percent: f.target,
        credit_bands: f.bands,
        current_month: soFar(f, Math.floor(now / INTERVAL_MS) * INTERVAL_MS),
        months: months.map((m) => ({
          month: m.month,
          uptime_percent: m.uptimePercent,
          target_percent: m.targetPercent,
          intervals: m.intervals,
          excluded_intervals: m.excludedIntervals,
          down_intervals: m.downIntervals,
          fee_cents: m.feeCents,
          credit_percent: m.creditPercent,
          credit_cents: m.creditCents,
        })),
      };
    },
  );

  app.get(
    '/api/v1/sla/intervals',
    {
      schema: {
        operationId: 'getSlaIntervals',
        tags: ['SLA'],
        summary: 'One month’s measurement: every interval that counted as down, and exclusions',
        description:
          'Business and Enterprise. `month` is a UTC calendar month (default: the current one), not after the current month.',
        querystring: Type.Object(
          {
            month: Type.Optional(
              Type.String({ pattern: '^\\d{4}-(0[1-9]|1[0-2])$', description: 'YYYY-MM (UTC).' }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: SoFarSchema, ...problemResponses(400, 401, 403) },
      },
      config: { auth: { access: 'account', scope: 'usage:read' } },
    },
    async (request) => {
      const principal = request.principal;
      assertPlanHas(plans, principal.plan, hasSla, 'The uptime SLA');
      const now = clock.now();
      const month = request.query.month ?? monthOf(now);
      const range = monthRange(month)!;
      if (range.start > now)
        throw AppError.invalidParams([
          { name: 'month', reason: `must not be after the current month (${monthOf(now)})` },
        ]);
      const f = await sla.accountMonth(principal.accountId as string, month);
      return soFar(f, Math.min(range.end, Math.floor(now / INTERVAL_MS) * INTERVAL_MS));
    },
  );

  app.get(
    '/api/v1/status',
    {
      schema: {
        operationId: 'getStatus',
        tags: ['Status'],
        summary: 'Service status: components, 90 days of daily uptime, incidents, maintenance',
        description:
          'Public, no credential. The same document the status page (`GET /status`) renders: each component’s state, 90 days of daily uptime measured by the rule of docs/sla.md (heartbeats and the outside probe), open and recent incidents, announced maintenance. Cached 30 s per instance.',
        querystring: Type.Object({}, { additionalProperties: false }),
        response: { 200: Type.Ref('ServiceStatus') },
      },
      config: { auth: { access: 'public' } },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'public, max-age=30');
      return status.status();
    },
  );
};

export const slaSchemas = [StatusSchema];
