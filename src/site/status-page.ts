import type { StatusDocument } from '../sla/index.js';
import { markup } from '../lib/html.js';
import type { Brand } from './brand.js';
import { page } from './layout.js';

const STATE_TEXT: Record<string, string> = {
  operational: 'Operational',
  degraded: 'Degraded',
  outage: 'Outage',
  maintenance: 'Under maintenance',
};

function barClass(uptime: number | null): string {
  if (uptime === null) return 'none';
  if (uptime >= 99.9) return 'up';
  if (uptime >= 99) return 'minor';
  return 'major';
}

/** An instant as the page shows it: `2026-11-29 04:14 UTC`. */
const shown = (iso: string): string => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

/** The public status page: the same document as /api/v1/status, as HTML without scripts. */
export function statusPage(brand: Brand, doc: StatusDocument): string {
  const bars = doc.uptime.daily.map((d) => {
    const text =
      d.uptime_percent === null
        ? `${d.date}: no data`
        : `${d.date}: ${d.uptime_percent} % (${d.down_minutes} min down)`;
    return markup`<li class="bar ${barClass(d.uptime_percent)}" title="${text}">
      <span class="sr">${text}</span>
    </li>`;
  });
  const components = doc.components.map(
    (c) =>
      markup`<li class="component">
        <span>${c.name}</span>
        <strong class="state ${c.status}">${STATE_TEXT[c.status] ?? c.status}</strong>
      </li>`,
  );
  const incidents =
    doc.incidents.length === 0
      ? markup`<p>No incidents in the last 90 days.</p>`
      : doc.incidents.map(
          (i) =>
            markup`<article class="incident ${i.resolved_at === null ? 'open' : 'resolved'}">
              <h3>${i.title}</h3>
              <p>
                ${i.component} · ${i.status} · opened ${shown(i.created_at)}${i.resolved_at === null ? '' : ` · resolved ${shown(i.resolved_at)}`}
              </p>
              <ol>
                ${i.updates.map(
                  (u) =>
                    markup`<li><time datetime="${u.at}">${shown(u.at)}</time> <b>${u.status}</b>: ${u.message}</li>`,
                )}
              </ol>
            </article>`,
        );
  const maintenance =
    doc.maintenance.length === 0
      ? markup`<p>No maintenance announced.</p>`
      : markup`<ul>
          ${doc.maintenance.map(
            (m) =>
              markup`<li class="maintenance">
                ${m.title}: ${shown(m.starts_at)} to ${shown(m.ends_at)} (announced
                ${shown(m.announced_at)})
              </li>`,
          )}
        </ul>`;
  const overall =
    doc.uptime.overall_percent === null ? 'no data yet' : `${doc.uptime.overall_percent} %`;
  return page({
    brand,
    title: 'Status',
    description: `Whether ${brand.name} is operational, its uptime over ${doc.uptime.days} days, incidents and announced maintenance.`,
    current: 'status',
    body: markup`<h1>${brand.name} status</h1>
      <p class="summary ${doc.status}" role="status">
        ${STATE_TEXT[doc.status] ?? doc.status} · updated
        <time datetime="${doc.generated_at}">${shown(doc.generated_at)}</time>
      </p>
      <h2>Components</h2>
      <ul class="components">
        ${components}
      </ul>
      <h2>Uptime, last ${doc.uptime.days} days: ${overall}</h2>
      <ol class="bars" aria-label="Daily uptime, oldest first">
        ${bars}
      </ol>
      <p>
        Measured service-wide by the published SLA rule (5-minute intervals; see
        <a href="/docs/guides/sla">the SLA</a>). The same figures as JSON:
        <a href="/api/v1/status">/api/v1/status</a>.
      </p>
      <h2>Incidents</h2>
      ${incidents}
      <h2>Maintenance</h2>
      ${maintenance}`,
  });
}
