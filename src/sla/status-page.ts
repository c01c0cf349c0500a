import type { StatusDocument } from './status.js';
import { PRODUCT_NAME } from '../lib/product-name.js';

const escape = (s: string): string =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

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

/** The public status page: the same document as /api/v1/status, as HTML without scripts. */
export function renderStatusPage(doc: StatusDocument): string {
  const bars = doc.uptime.daily
    .map((d) => {
      const text =
        d.uptime_percent === null
          ? `${d.date}: no data`
          : `${d.date}: ${d.uptime_percent} % (${d.down_minutes} min down)`;
      return `<li class="bar ${barClass(d.uptime_percent)}" title="${escape(text)}"><span class="sr">${escape(text)}</span></li>`;
    })
    .join('');
  const components = doc.components
    .map(
      (c) =>
        `<li class="component"><span>${escape(c.name)}</span> <strong class="state ${escape(c.status)}">${escape(STATE_TEXT[c.status] ?? c.status)}</strong></li>`,
    )
    .join('');
  const incidents =
    doc.incidents.length === 0
      ? '<p>No incidents in the last 90 days.</p>'
      : doc.incidents
          .map(
            (i) =>
              `<article class="incident ${i.resolved_at === null ? 'open' : 'resolved'}"><h3>${escape(i.title)}</h3>` +
              `<p>${escape(i.component)} · ${escape(i.status)} · opened ${escape(i.created_at)}${i.resolved_at === null ? '' : ` · resolved ${escape(i.resolved_at)}`}</p><ol>` +
              i.updates
                .map(
                  (u) =>
                    `<li><time>${escape(u.at)}</time> <b>${escape(u.status)}</b>: ${escape(u.message)}</li>`,
                )
                .join('') +
              '</ol></article>',
          )
          .join('');
  const maintenance =
    doc.maintenance.length === 0
      ? '<p>No maintenance announced.</p>'
      : '<ul>' +
        doc.maintenance
          .map(
            (m) =>
              `<li class="maintenance">${escape(m.title)}: ${escape(m.starts_at)} to ${escape(m.ends_at)} (announced ${escape(m.announced_at)})</li>`,
          )
          .join('') +
        '</ul>';
  const overall =
    doc.uptime.overall_percent === null ? 'no data yet' : `${doc.uptime.overall_percent} %`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${PRODUCT_NAME} status</title>
<style>
body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}
.summary{padding:1rem;border-radius:.5rem;background:#e6f4ea}.summary.degraded,.summary.maintenance{background:#fff4e5}.summary.outage{background:#fdecea}
ul.components{list-style:none;padding:0}.component{display:flex;justify-content:space-between;padding:.5rem 0;border-bottom:1px solid #ddd}
.state.operational{color:#0a6b2b}.state.degraded,.state.maintenance{color:#8a4b00}.state.outage{color:#a50e0e}
ol.bars{display:flex;gap:2px;list-style:none;padding:0;height:2.5rem}.bar{flex:1;border-radius:2px}
.bar.up{background:#2e9e50}.bar.minor{background:#e3a21a}.bar.major{background:#c5221f}.bar.none{background:#ccc}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
.incident.open{border-left:4px solid #c5221f;padding-left:.75rem}
</style></head>
<body><main>
<h1>${PRODUCT_NAME} status</h1>
<p class="summary ${escape(doc.status)}" role="status">${escape(STATE_TEXT[doc.status] ?? doc.status)} · updated ${escape(doc.generated_at)}</p>
<h2>Components</h2><ul class="components">${components}</ul>
<h2>Uptime, last ${doc.uptime.days} days: ${escape(overall)}</h2>
<ol class="bars" aria-label="Daily uptime, oldest first">${bars}</ol>
<p>Measured service-wide by the published SLA rule (5-minute intervals; docs/sla.md). The same figures as JSON: <a href="/api/v1/status">/api/v1/status</a>.</p>
<h2>Incidents</h2>${incidents}
<h2>Maintenance</h2>${maintenance}
</main></body></html>`;
}
