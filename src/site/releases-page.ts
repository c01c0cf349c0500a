import type { ReleaseCatalog } from '../releases/index.js';
import type { Brand } from './brand.js';
import { markup } from '../lib/html.js';
import { page } from './layout.js';

type History = Awaited<ReturnType<ReleaseCatalog['history']>>;

/** The public list of kept data releases with what changed in each, in words and counts. */
export function releasesPage(brand: Brand, history: History): string {
  const entries = history.map(({ release, changes }) => {
    const s = changes?.summary;
    const worst = [...(s?.by_country ?? [])]
      .sort((a, b) => b.beyond_5 - a.beyond_5 || b.changed - a.changed)
      .slice(0, 5);
    return markup`<section>
      <h2>${release.version}${release.active ? ' (active)' : ''}</h2>
      <p>
        Published ${release.published_at.slice(0, 10)}, loaded ${release.loaded_at.slice(0, 10)};
        ${release.counts.records} records, ${release.first_year}–${release.current_year} (published
        statistics to ${release.last_published_year}), ${release.sources.length} sources.
      </p>
      ${
        s === undefined
          ? markup`<p>The oldest kept release.</p>`
          : markup`<p>
                From ${release.previous_release ?? ''}: ${s.changed} of ${s.cells} cells changed;
                medians moved by more than 1 % in ${s.beyond['1']}, 5 % in ${s.beyond['5']} and 10 %
                in ${s.beyond['10']}.
                <a href="${release.changes_url ?? ''}">Every change</a> (API, Developer plan and
                higher).
              </p>
              <ul>
                ${(changes?.reasons ?? []).map((r) => markup`<li><code>${r.reason}</code>: ${r.detail}</li>`)}
              </ul>
              ${
                worst.length === 0
                  ? ''
                  : markup`<p>
                      Most moved (cells beyond 5 %):
                      ${worst.map((c) => `${c.country} ${c.beyond_5} of ${c.changed}`).join(', ')}.
                    </p>`
              }`
      }
      <details>
        <summary>Method</summary>
        <p>${release.methodology}</p>
      </details>
    </section>`;
  });
  return page({
    brand,
    title: 'Data releases',
    description: 'The kept data releases, what changed in each and why.',
    body: markup`<h1>Data releases</h1>
      <p class="lead">
        Every kept release stays queryable: add <code>release=VERSION</code> or
        <code>as_of=YYYY-MM-DD</code> to a salary request. The first is the active one.
      </p>
      ${entries}`,
  });
}
