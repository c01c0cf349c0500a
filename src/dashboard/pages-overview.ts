import type { FastifyInstance } from 'fastify';
import type { Principal } from '../auth/index.js';
import type { Plan } from '../plans/index.js';
import type { UsageQuota } from '../usage/index.js';
import { classChart, CLASS_LABELS } from './charts.js';
import { type DashboardDeps, type DashboardTools, signedIn } from './context.js';
import { markup, type Html } from '../lib/html.js';
import { BASE, FEATURE_PAGES, lowestPlanFor, number, page, percent, time } from './layout.js';
import {
  overview,
  overviewRanges,
  projectQuota,
  STATUS_CLASSES,
  type Overview,
  type Projection,
} from './view-models.js';

function projectionText(p: Projection): Html {
  switch (p.kind) {
    case 'unlimited':
      return markup`Your plan has no request limit.`;
    case 'reached':
      return markup`<span class="warn">The limit is reached:</span> requests are refused with 429
        until the reset.`;
    case 'idle':
      return markup`No requests in this window yet.`;
    case 'before-reset':
      return markup`<span class="warn"
          >At the current pace (about ${number(p.pacePerHour)} per hour) the limit is reached at
          ${time(p.at)}</span
        >, before the reset.`;
    case 'after-reset':
      return markup`At the current pace (about ${number(p.pacePerHour)} per hour) about
      ${number(p.expectedAtReset)} requests are used by the reset: the limit is not reached.`;
  }
}

function quotaCard(quota: UsageQuota, projection: Projection): Html {
  if (quota.limit === null)
    return markup`<div class="card">
      <h2>Quota</h2>
      <p class="figure">Unlimited</p>
    </div>`;
  const window = quota.window === 'day' ? 'today (UTC day)' : 'this hour';
  return markup`<div class="card" id="quota">
    <h2>Quota ${window}</h2>
    <p class="figure">
      <span id="quota-used">${number(quota.used)}</span> of ${number(quota.limit)} used
    </p>
    <label for="quota-meter" class="muted">Used</label>
    <meter
      id="quota-meter"
      class="meter"
      min="0"
      max="${quota.limit}"
      value="${quota.used}"
      high="${Math.floor(quota.limit * 0.8)}"
      optimum="0"
    >
      ${quota.used}
    </meter>
    <p>
      <span id="quota-left">${number(quota.remaining)}</span> left; resets at
      ${time(quota.resets_at)}
    </p>
    <p id="projection">${projectionText(projection)}</p>
  </div>`;
}

function windowsTable(view: Overview): Html {
  return markup`<div class="table-wrap">
    <table id="windows" class="cards-on-phone">
      <caption class="muted">
        Requests by status class (429: refused for exceeding the limit)
      </caption>
      <thead>
        <tr>
          <th scope="col">Period</th>
          <th scope="col" class="num">Requests</th>
          ${STATUS_CLASSES.map((c) => markup`<th scope="col" class="num">${CLASS_LABELS[c]}</th>`)}
          <th scope="col" class="num">Error rate</th>
        </tr>
      </thead>
      <tbody>
        ${view.windows.map(
          (w, i) =>
            markup`<tr>
              <th scope="row">${w.label}</th>
              <td class="num" data-label="Requests" id="${['total-24h', 'total-7d', 'total-30d'][i]}">
                ${number(w.total)}
              </td>
              ${STATUS_CLASSES.map((c) => markup`<td class="num" data-label="${CLASS_LABELS[c]}">${number(w.byClass[c])}</td>`)}
              <td class="num" data-label="Error rate">${percent(w.errorRate)}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

function endpointsTable(view: Overview): Html {
  if (view.endpoints.length === 0)
    return markup`<p class="muted">No requests in the last 30 days.</p>`;
  return markup`<div class="table-wrap">
    <table id="endpoints">
      <thead>
        <tr>
          <th scope="col">Endpoint</th>
          <th scope="col" class="num">Requests (30 days)</th>
          <th scope="col" class="num">Errors</th>
          <th scope="col" class="num">Error rate</th>
        </tr>
      </thead>
      <tbody>
        ${view.endpoints.map(
          (e) =>
            markup`<tr>
              <td><code>${e.endpoint}</code></td>
              <td class="num">${number(e.total)}</td>
              <td class="num">${number(e.errors)}</td>
              <td class="num">${percent(e.total === 0 ? null : e.errors / e.total)}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

/**
 * The overview of a plan with usage analytics: the three reads (the last 24 hours per hour and
 * status, the last 30 days per day, endpoint and status, the quota) and their view model.
 */
export async function overviewData(
  deps: Pick<DashboardDeps, 'usage' | 'clock'>,
  principal: Principal,
): Promise<{ quota: UsageQuota; view: Overview }> {
  const now = deps.clock.now();
  const { hours, days } = overviewRanges(now);
  const [hourly, daily, quota] = await Promise.all([
    deps.usage.grouped(principal, hours, 'hour', ['status']),
    deps.usage.grouped(principal, days, 'day', ['endpoint', 'status']),
    deps.usage.quota(principal),
  ]);
  return { quota, view: overview(hourly, daily, quota, now) };
}

/** The overview's content for a plan with usage analytics (see overviewData). */
export function overviewContent(plan: Plan, quota: UsageQuota, view: Overview): Html {
  const day = view.windows[0];
  return markup`<div class="cards">
      <div class="card">
        <h2>Plan</h2>
        <p class="figure" id="plan">${plan.name}</p>
        <p><a href="${BASE}/billing">Change plan</a></p>
      </div>
      ${quotaCard(quota, view.projection)}
      <div class="card">
        <h2>Error rate, 24 hours</h2>
        <p class="figure" id="error-rate">${percent(day?.errorRate ?? null)}</p>
        <p>
          ${number(day?.byClass['429'] ?? 0)} refused over the limit (429),
          ${number(day?.byClass['5xx'] ?? 0)} server errors.
        </p>
      </div>
    </div>
    <h2>Requests</h2>
    ${windowsTable(view)}
    ${classChart('chart-24h', 'Last 24 hours, per hour (UTC)', view.hourly, 'hour')}
    ${classChart('chart-30d', 'Last 30 days, per day (UTC)', view.daily, 'day')}
    <h2>Top endpoints</h2>
    ${endpointsTable(view)}
    <p><a href="${BASE}/usage">Usage details and CSV</a></p>`;
}

/** The features of higher plans, each with the lowest plan that has it. */
function higherPlans(deps: DashboardDeps, plan: Plan): Html {
  const missing = FEATURE_PAGES.filter((f) => !f.has(plan)).map((f) => ({
    f,
    lowest: lowestPlanFor(deps.plans, f.path),
  }));
  if (missing.length === 0) return markup``;
  return markup`<h2>With a higher plan</h2>
    <ul class="features" id="higher-plans">
      ${missing.map(
        ({ f, lowest }) =>
          markup`<li><a href="${BASE}${f.path}">${f.what}</a>: the ${lowest?.name ?? 'Enterprise'} plan</li>`,
      )}
    </ul>
    <p><a href="${BASE}/billing">Compare and change plans</a>.</p>`;
}

/**
 * The active data release and what moved since the previous one (the summary the data.updated
 * e-mail and webhook carry), with how to pin the previous release where the plan reaches it.
 */
async function releaseCard(deps: DashboardDeps, plan: Plan): Promise<Html> {
  const [latest, previous] = (await deps.releases?.history()) ?? [];
  if (latest === undefined) return markup``;
  const s = latest.changes?.summary;
  const moved = [...(s?.by_country ?? [])]
    .filter((c) => c.beyond_5 > 0)
    .sort((a, b) => b.beyond_5 - a.beyond_5)
    .slice(0, 5);
  return markup`<h2>Data release</h2>
    <div id="release">
      <p>
        Answers come from release <strong>${latest.release.version}</strong>, loaded
        ${latest.release.loaded_at.slice(0, 10)}.
      </p>
      ${
        s === undefined || previous === undefined
          ? markup``
          : markup`<p>
              From ${previous.release.version}: ${number(s.changed)} of ${number(s.cells)} cells
              changed; medians moved by more than 1 % in ${number(s.beyond['1'])}, 5 % in
              ${number(s.beyond['5'])} and 10 % in ${number(s.beyond['10'])}${
                moved.length === 0
                  ? markup``
                  : markup` (most: ${moved.map((c) => `${c.country} ${c.beyond_5}`).join(', ')})`
              }.
            </p>
            ${
              plan.releasesBack === 0
                ? markup``
                : markup`<p>
                    To keep answers on ${previous.release.version} while you review, add
                    <code>release=${previous.release.version}</code> to your requests; every
                    change: <code>GET /api/v1/releases/${latest.release.version}/changes</code>.
                  </p>`
            }`
      }
      <p><a href="/data/releases">What changed in each release</a></p>
    </div>`;
}

/** GET /dashboard: plan, quota and its projection, the last 24 hours, 7 and 30 days. */
export function overviewPage(app: FastifyInstance, tools: DashboardTools): void {
  const { deps } = tools;
  app.get('/dashboard', async (request, reply) => {
    const { principal, page: ctx } = signedIn(request);
    const plan = principal.plan;
    if (!plan.usageAnalytics) {
      // Free: no analytics, but the hour's quota and its pace, counted as the API counts Free
      // requests from the address this page is viewed from.
      const quota = await deps.usage.quotaAt(principal, request.ip);
      return tools.send(
        reply,
        200,
        page(
          ctx,
          '',
          'Overview',
          markup`<div class="cards">
<div class="card"><h2>Plan</h2><p class="figure" id="plan">${plan.name}</p>
<p>JSON, the current year; no key needed.</p></div>
${quotaCard(quota, projectQuota(quota, deps.clock.now()))}
</div>
<p id="quota-address">Free requests are counted per client address as well as per account, and
the tighter count applies: shown here for <code>${request.ip}</code>, the address this page is
viewed from.</p>
<p>Usage analytics, API keys and higher limits come with the Developer plan and above.
<a href="${BASE}/billing">Choose a plan</a>.</p>
${await releaseCard(deps, plan)}
${higherPlans(deps, plan)}`,
        ),
      );
    }
    const { quota, view } = await overviewData(deps, principal);
    return tools.send(
      reply,
      200,
      page(
        ctx,
        '',
        'Overview',
        markup`${overviewContent(plan, quota, view)}${await releaseCard(deps, plan)}${higherPlans(deps, plan)}`,
      ),
    );
  });
}
