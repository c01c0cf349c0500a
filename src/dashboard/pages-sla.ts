import type { FastifyInstance } from 'fastify';
import { formatPercent, INTERVAL_MS, monthOf } from '../sla/index.js';
import { type DashboardTools, signedIn } from './context.js';
import { markup } from '../lib/html.js';
import { BASE, page, time } from './layout.js';
import { euros } from './pages-billing.js';

const REASONS: Record<string, string> = {
  errors: 'failed requests',
  no_instance_alive: 'no instance alive',
  probe_failed: 'probe failed throughout',
};

/** GET /dashboard/sla: the same figures as GET /api/v1/sla (docs/sla.md). */
export function slaPage(app: FastifyInstance, tools: DashboardTools): void {
  const { deps } = tools;
  app.get('/dashboard/sla', async (request, reply) => {
    const { principal, page: ctx } = signedIn(request);
    const sla = deps.planFeatures.sla;
    if (sla === undefined || principal.plan.slaPercent === null) {
      const content = markup`<p>
          The uptime SLA comes with the Business plan (99.5 %) and Enterprise (99.9 % or the
          contract's figure). <a href="${BASE}/billing">Change plan</a>.
        </p>`;
      return tools.send(reply, 200, page(ctx, '/sla', 'Uptime SLA', content));
    }
    const accountId = principal.accountId as string;
    const account = await deps.accounts.get(accountId);
    const now = deps.clock.now();
    const month = monthOf(now);
    const [figures, months] = await Promise.all([
      sla.monthFor(account, month),
      sla.months(accountId),
    ]);
    if (figures === undefined)
      return tools.send(reply, 404, page(ctx, '/sla', 'Uptime SLA', markup`<p>No figures.</p>`));
    const m = figures.measurement;
    const content = markup`<dl class="cards">
        <div class="card">
          <dt>Guaranteed uptime</dt>
          <dd class="figure">${formatPercent(figures.target)}</dd>
        </div>
        <div class="card">
          <dt>${month} so far</dt>
          <dd class="figure">${formatPercent(m.uptime)}</dd>
        </div>
        <div class="card">
          <dt>Intervals counted</dt>
          <dd>${m.intervals} (excluded: ${m.excluded.maintenance + m.excluded.ownReasons})</dd>
        </div>
      </dl>
      <p>
        Measured in 5-minute intervals: an interval's error rate is its failed (5xx, or over 30 s)
        ÷ counted requests; an interval with no instance alive, or the probe failing throughout, is
        100 % down. A miss is credited to your balance automatically at month close.
      </p>
      <h2>Credit bands</h2>
      <ul>
        ${figures.bands.map((b) => markup`<li>Uptime below ${formatPercent(b.below)}: ${b.percent} % of the month's fee</li>`)}
      </ul>
      <h2>Intervals down this month</h2>
      ${
        m.down.length === 0
          ? markup`<p class="muted">None.</p>`
          : markup`<div class="table-wrap"><table class="cards-on-phone">
              <thead><tr><th scope="col">Interval</th><th scope="col">Why</th><th scope="col">Error rate</th><th scope="col">Served</th><th scope="col">Failed</th></tr></thead>
              <tbody>
                ${m.down.map(
                  (d) => markup`<tr>
                    <td data-label="Interval">${time(d.start)} to ${time(d.start + INTERVAL_MS)}</td>
                    <td data-label="Why">${REASONS[d.reason] ?? d.reason}</td>
                    <td data-label="Error rate">${formatPercent(d.errorRate)}</td>
                    <td data-label="Served">${d.served}</td>
                    <td data-label="Failed">${d.failed}</td>
                  </tr>`,
                )}
              </tbody>
            </table></div>`
      }
      <h2>Past months</h2>
      ${
        months.length === 0
          ? markup`<p class="muted">No month closed yet.</p>`
          : markup`<div class="table-wrap"><table>
              <thead><tr><th scope="col">Month</th><th scope="col">Uptime</th><th scope="col">Target</th><th scope="col">Credit</th></tr></thead>
              <tbody>
                ${months.map(
                  (p) => markup`<tr>
                    <td>${p.month}</td>
                    <td>${formatPercent(p.uptimePercent)}</td>
                    <td>${formatPercent(p.targetPercent)}</td>
                    <td>${p.creditCents === 0 ? '—' : `${euros(p.creditCents)} (${p.creditPercent} %)`}</td>
                  </tr>`,
                )}
              </tbody>
            </table></div>`
      }`;
    return tools.send(reply, 200, page(ctx, '/sla', 'Uptime SLA', content));
  });
}
