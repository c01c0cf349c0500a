import type { SalaryIndex } from '../salary/index.js';
import type { Brand } from './brand.js';
import { bandsByLevelChart, medianByCountryChart } from './charts.js';
import { markup, type Html } from '../lib/html.js';
import { page } from './layout.js';
import { renderMarkdown } from './markdown.js';

export interface MethodologyInput {
  brand: Brand;
  /** docs/methodology.md rendered. */
  document: Html;
  /** docs/validation.md (the data build's tables) rendered; undefined when not published. */
  validation: Html | undefined;
  index: SalaryIndex | undefined;
}

/** docs/validation.md as HTML under the page's own "Validation" heading. */
export function validationHtml(text: string | undefined): Html | undefined {
  return text === undefined ? undefined : renderMarkdown(text, 1);
}

export function methodologyPage(input: MethodologyInput): string {
  const { index } = input;
  const sources = index?.release.header.sources ?? [];
  const body = markup` <article>
    ${input.document}
    ${
      index === undefined
        ? ''
        : markup`<h2 id="charts">The figures at a glance</h2>
            <p>Drawn on this server from data release ${index.release.version}.</p>
            ${medianByCountryChart(index)} ${bandsByLevelChart(index)}`
    }
    ${
      sources.length === 0
        ? ''
        : markup`<h2 id="release-sources">Sources of data release ${index?.release.version ?? ''}</h2>
            <table>
              <thead>
                <tr>
                  <th scope="col">Source</th>
                  <th scope="col">Publisher</th>
                  <th scope="col">Used for</th>
                </tr>
              </thead>
              <tbody>
                ${sources.map(
                  (s) =>
                    markup`<tr>
                      <td>
                        ${/^https?:\/\//.test(s.url) ? markup`<a href="${s.url}">${s.title}</a>` : s.title}
                      </td>
                      <td>${s.publisher}</td>
                      <td>${s.used_for}</td>
                    </tr>`,
                )}
              </tbody>
            </table>`
    }
    <h2 id="validation">Validation</h2>
    ${
      input.validation ??
      markup`<p>
        The validation tables (the model against each published table, leave-one-out errors, country
        means against Eurostat) are published with each data release.
      </p>`
    }
    <p class="note">This page as Markdown: <a href="/methodology.md">/methodology.md</a>.</p>
  </article>`;
  return page({
    brand: input.brand,
    title: 'Methodology',
    description: 'How the salary figures are made: sources, model, confidence and validation.',
    current: 'methodology',
    body,
  });
}
