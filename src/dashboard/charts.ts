import { markup, jsonData, type Html } from '../lib/html.js';
import { number } from './layout.js';
import { STATUS_CLASSES, type SeriesPoint, type StatusClass } from './view-models.js';

/** Colours with 3:1 contrast on white, one per status class. */
export const CLASS_COLORS: Record<StatusClass, string> = {
  '2xx': '#1a7f37',
  '4xx': '#bf8700',
  '429': '#cf222e',
  '5xx': '#6639ba',
  other: '#57606a',
};

export const CLASS_LABELS: Record<StatusClass, string> = {
  '2xx': '2xx success',
  '4xx': '4xx client error',
  '429': '429 over the limit',
  '5xx': '5xx server error',
  other: 'other',
};

export interface ChartSeries {
  label: string;
  color: string;
  values: number[];
}

/**
 * A chart (drawn by uPlot from the JSON block beside it) with its data as a table underneath:
 * the table is the chart for screen readers and for browsers without script.
 */
export function chart(
  id: string,
  caption: string,
  x: number[],
  series: ChartSeries[],
  xLabel: (ms: number) => Html,
): Html {
  const totals = x.map((_, i) => series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0));
  return markup`<figure class="chart-figure">
    <figcaption><h2 id="${id}-title">${caption}</h2></figcaption>
    <div
      id="${id}"
      class="chart"
      role="img"
      aria-labelledby="${id}-title"
      aria-describedby="${id}-table-note"
    ></div>
    <script type="application/json" class="chart-data">
      ${jsonData({ target: id, x, series })}
    </script>
    <details>
      <summary id="${id}-table-note">The data as a table</summary>
      <div class="table-wrap">
        <table id="${id}-table">
          <thead>
            <tr>
              <th scope="col">Start (UTC)</th>
              ${series.map((s) => markup`<th scope="col" class="num">${s.label}</th>`)}
              <th scope="col" class="num">Total</th>
            </tr>
          </thead>
          <tbody>
            ${x.map(
              (start, i) =>
                markup`<tr>
                  <td>${xLabel(start)}</td>
                  ${series.map((s) => markup`<td class="num">${number(s.values[i] ?? 0)}</td>`)}
                  <td class="num">${number(totals[i] ?? 0)}</td>
                </tr>`,
            )}
          </tbody>
        </table>
      </div>
    </details>
  </figure>`;
}

export function classChart(
  id: string,
  caption: string,
  points: SeriesPoint[],
  step: 'hour' | 'day',
): Html {
  const classes = STATUS_CLASSES.filter(
    (c) => c !== 'other' || points.some((p) => p.byClass.other > 0),
  );
  return chart(
    id,
    caption,
    points.map((p) => p.start),
    classes.map((c) => ({
      label: CLASS_LABELS[c],
      color: CLASS_COLORS[c],
      values: points.map((p) => p.byClass[c]),
    })),
    (ms) =>
      markup`${new Date(ms)
        .toISOString()
        .slice(0, step === 'hour' ? 16 : 10)
        .replace('T', ' ')}`,
  );
}
