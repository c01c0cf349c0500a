import type { FastifyInstance } from 'fastify';
import type { UsageColumn } from '../usage/index.js';
import { chart } from './charts.js';
import { type DashboardTools, signedIn } from './context.js';
import { markup } from '../lib/html.js';
import { BASE, number, page, type Flash } from './layout.js';
import {
  BREAKDOWNS,
  DAY,
  HOUR,
  usageCsv,
  usageTable,
  type Breakdown,
  type UsageTable,
} from './view-models.js';

const PALETTE = [
  '#0b5cad',
  '#1a7f37',
  '#bf8700',
  '#cf222e',
  '#6639ba',
  '#0f7b8a',
  '#9a3412',
  '#57606a',
];
const MAX_DAYS = 93;
/** The usage column each breakdown groups by (the class is derived from the status). */
const COLUMN: Record<Breakdown, UsageColumn> = {
  class: 'status',
  status: 'status',
  endpoint: 'endpoint',
  key: 'key_id',
};
const BREAKDOWN_LABELS: Record<Breakdown, string> = {
  class: 'Status class',
  status: 'Status code',
  endpoint: 'Endpoint',
  key: 'API key or OAuth client',
};

export interface UsageParams {
  from: string;
  to: string;
  granularity: 'hour' | 'day';
  breakdown: Breakdown;
}

function day(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function parseDay(value: string): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return undefined;
  const at = Date.parse(`${value}T00:00:00Z`);
  return Number.isNaN(at) || day(at) !== value ? undefined : at;
}

/** The page's query, defaults filled in; what is wrong comes back as messages (shown, 400). */
export function usageParams(
  query: Record<string, unknown>,
  now: number,
): { params: UsageParams; from: number; to: number; problems: string[] } {
  const today = Math.floor(now / DAY) * DAY;
  const problems: string[] = [];
  const str = (name: string) => (typeof query[name] === 'string' ? query[name] : '');
  let from = today - 6 * DAY;
  let to = today;
  if (str('from') !== '') {
    const v = parseDay(str('from'));
    if (v === undefined) problems.push(`“from” must be a date (YYYY-MM-DD), not “${str('from')}”.`);
    else from = v;
  }
  if (str('to') !== '') {
    const v = parseDay(str('to'));
    if (v === undefined) problems.push(`“to” must be a date (YYYY-MM-DD), not “${str('to')}”.`);
    else to = v;
  }
  if (to < from) problems.push('“to” must not be before “from”.');
  if (to - from >= MAX_DAYS * DAY) problems.push(`The range may span at most ${MAX_DAYS} days.`);
  const granularity = str('granularity') === '' ? 'day' : str('granularity');
  if (granularity !== 'hour' && granularity !== 'day')
    problems.push('“granularity” must be hour or day.');
  const breakdown = (str('breakdown') === '' ? 'class' : str('breakdown')) as Breakdown;
  if (!BREAKDOWNS.includes(breakdown))
    problems.push(`“breakdown” must be one of ${BREAKDOWNS.join(', ')}.`);
  if (problems.length > 0) {
    from = today - 6 * DAY;
    to = today;
  }
  return {
    params: {
      from: day(from),
      to: day(to),
      granularity: problems.length > 0 || granularity !== 'hour' ? 'day' : 'hour',
      breakdown: problems.length > 0 || !BREAKDOWNS.includes(breakdown) ? 'class' : breakdown,
    },
    from,
    to: to + DAY,
    problems,
  };
}

function query(params: UsageParams, extra = ''): string {
  const q = new URLSearchParams({ ...params });
  return `${q.toString()}${extra}`;
}

function usageChart(table: UsageTable) {
  return chart(
    'chart-usage',
    `Requests per ${table.step === HOUR ? 'hour' : 'day'} by ${BREAKDOWN_LABELS[table.breakdown].toLowerCase()} (UTC)`,
    table.rows.map((r) => r.start),
    table.groups.map((g, i) => ({
      label: g,
      color: PALETTE[i % PALETTE.length] as string,
      values: table.rows.map((r) => r.counts[i] ?? 0),
    })),
    (ms) =>
      markup`${new Date(ms)
        .toISOString()
        .slice(0, table.step === HOUR ? 16 : 10)
        .replace('T', ' ')}`,
  );
}

/** GET /dashboard/usage (and ?download=csv): range, granularity, breakdown, table and CSV. */
export function usagePage(app: FastifyInstance, tools: DashboardTools): void {
  const { deps } = tools;
  app.get('/dashboard/usage', async (request, reply) => {
    const { principal, page: ctx } = signedIn(request);
    if (!principal.plan.usageAnalytics) {
      // A page that says which plan has the feature, not an error.
      return tools.send(
        reply,
        200,
        page(
          ctx,
          '/usage',
          'Usage',
          markup`<p>
            Usage analytics come with the Developer plan and above.
            <a href="${BASE}/billing">Choose a plan</a>.
          </p>`,
        ),
      );
    }
    const raw = request.query as Record<string, unknown>;
    const { params, from, to, problems } = usageParams(raw, deps.clock.now());
    const step = params.granularity === 'hour' ? 'hour' : 'day';
    const byKey = params.breakdown === 'key';
    const [rows, keys, clients] = await Promise.all([
      deps.usage.grouped(principal, { from, to }, step, [COLUMN[params.breakdown]]),
      byKey ? deps.keys.list(principal.accountId as string) : Promise.resolve([]),
      byKey && principal.plan.oauth && deps.planFeatures.oauthClients !== undefined
        ? deps.planFeatures.oauthClients.list(principal)
        : Promise.resolve([]),
    ]);
    const names = new Map([
      ...keys.map((k) => [k.id, `${k.name} (${k.prefix}…)`] as const),
      ...clients.map((c) => [c.id, `OAuth client ${c.name} (${c.id})`] as const),
    ]);
    const table = usageTable(
      rows,
      { from, to, step: params.granularity === 'hour' ? HOUR : DAY, breakdown: params.breakdown },
      (_b, value) =>
        value === ''
          ? 'session token'
          : (names.get(value) ??
            (value.startsWith('ocl_') ? `OAuth client ${value}` : `key ${value}`)),
    );
    if (raw['download'] === 'csv' && problems.length === 0) {
      return reply
        .header('cache-control', 'no-store')
        .header(
          'content-disposition',
          `attachment; filename="usage-${params.from}-${params.to}-${params.granularity}-${params.breakdown}.csv"`,
        )
        .type('text/csv; charset=utf-8')
        .send(usageCsv(table));
    }
    const flash: Flash | undefined =
      problems.length === 0
        ? undefined
        : { kind: 'error', text: `${problems.join(' ')} Showing the last 7 days instead.` };
    const option = (value: string, label: string, current: string) =>
      markup`<option value="${value}" ${value === current ? markup` selected` : ''}>${label}</option>`;
    const content = markup`<form
        method="get"
        action="${BASE}/usage"
        class="row"
        aria-label="Usage filters"
      >
        <label for="from"
          >From<input id="from" name="from" type="date" value="${params.from}" required
        /></label>
        <label for="to"
          >To<input id="to" name="to" type="date" value="${params.to}" required
        /></label>
        <label for="granularity"
          >Per<select id="granularity" name="granularity">
            ${option('day', 'Day', params.granularity)}${option('hour', 'Hour', params.granularity)}
          </select></label
        >
        <label for="breakdown"
          >Broken down by<select id="breakdown" name="breakdown">
            ${BREAKDOWNS.map((b) => option(b, BREAKDOWN_LABELS[b], params.breakdown))}
          </select></label
        >
        <button type="submit">Show</button>
      </form>
      <p id="usage-total">
        ${number(table.total)} requests from ${params.from} to ${params.to} (UTC days).
      </p>
      ${usageChart(table)}
      <h2>Totals by ${BREAKDOWN_LABELS[params.breakdown].toLowerCase()}</h2>
      <div class="table-wrap">
        <table id="usage-totals">
          <thead>
            <tr>
              <th scope="col">${BREAKDOWN_LABELS[params.breakdown]}</th>
              <th scope="col" class="num">Requests</th>
            </tr>
          </thead>
          <tbody>
            ${table.groups.map(
              (g, i) =>
                markup`<tr>
                  <td class="name">${g}</td>
                  <td class="num">${number(table.totals[i] ?? 0)}</td>
                </tr>`,
            )}
          </tbody>
        </table>
      </div>
      <p>
        <a id="csv-link" href="${BASE}/usage?${query(params, '&download=csv')}" download
          >Download this table as CSV</a
        >
      </p>`;
    return tools.send(
      reply,
      problems.length === 0 ? 200 : 400,
      page(ctx, '/usage', 'Usage', content, flash),
    );
  });
}
