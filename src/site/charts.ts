import { COUNTRIES, JOBS, LEVELS } from '../catalog/index.js';
import type { SalaryIndex } from '../salary/index.js';
import { markup, type Html } from '../lib/html.js';

const euros = new Intl.NumberFormat('en-GB', {
  style: 'currency',
  currency: 'EUR',
  maximumFractionDigits: 0,
});
const thousands = (value: number): string => `€${Math.round(value / 1000)}k`;

/** Round axis steps: 10k, 20k, 25k, 50k … for a maximum. */
function axisStep(max: number): number {
  const raw = max / 5;
  const power = 10 ** Math.floor(Math.log10(raw));
  return ([1, 2, 2.5, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? raw) || 1;
}

export interface ChartChoice {
  job: string;
  level: string;
  country: string;
}

export const CHART_CHOICE: ChartChoice = { job: 'software-engineer', level: 'mid', country: 'DE' };

/** Median pay of one job and level in every country, current year, as horizontal bars. */
export function medianByCountryChart(index: SalaryIndex, choice = CHART_CHOICE): Html {
  const year = index.currentYear;
  const job = JOBS.find((j) => j.slug === choice.job);
  const rows = COUNTRIES.map((c) => ({
    country: c,
    record: index.cell(c.code, choice.job, year).find((r) => r.level === choice.level),
  }))
    .filter((r) => r.record !== undefined)
    .map((r) => ({ name: r.country.name, median: r.record!.median }))
    .sort((a, b) => b.median - a.median);
  if (rows.length === 0 || job === undefined) return markup``;
  const bar = 16;
  const gap = 6;
  const left = 120;
  const width = 720;
  const plot = width - left - 70;
  const top = 24;
  const height = top + rows.length * (bar + gap) + 24;
  const max = Math.max(...rows.map((r) => r.median));
  const step = axisStep(max);
  const scaleMax = Math.ceil(max / step) * step;
  const x = (v: number) => left + (v / scaleMax) * plot;
  const ticks = Array.from({ length: Math.round(scaleMax / step) + 1 }, (_, i) => i * step);
  const title = `Median gross annual pay of a ${job.title.toLowerCase()} (${choice.level} level) by country, ${year}`;
  return markup`<figure>
    <svg
      viewBox="0 0 ${width} ${height}"
      width="100%"
      role="img"
      aria-labelledby="chart-country-title"
    >
      <title id="chart-country-title">${title}</title>
      ${ticks.map(
        (t) =>
          markup`<line
              x1="${x(t)}"
              x2="${x(t)}"
              y1="${top - 6}"
              y2="${height - 22}"
              stroke="#d8dee7"
            /><text x="${x(t)}" y="${top - 10}" font-size="11" text-anchor="middle" fill="#4a5566"
              >${thousands(t)}</text
            >`,
      )}
      ${rows.map((r, i) => {
        const y = top + i * (bar + gap);
        return markup`<text
            x="${left - 8}"
            y="${y + bar - 4}"
            font-size="12"
            text-anchor="end"
            fill="#1b2430"
            >${r.name}</text
          ><rect x="${left}" y="${y}" width="${x(r.median) - left}" height="${bar}" fill="#0b5cad"
            ><title>${r.name}: ${euros.format(r.median)}</title></rect
          ><text x="${x(r.median) + 4}" y="${y + bar - 4}" font-size="11" fill="#1b2430"
            >${euros.format(r.median)}</text
          >`;
      })}
    </svg>
    <figcaption>${title}, from the data release loaded on this server.</figcaption>
  </figure>`;
}

/** p10–p90 and p25–p75 bands with the median, per level, of one job in one country. */
export function bandsByLevelChart(index: SalaryIndex, choice = CHART_CHOICE): Html {
  const year = index.currentYear;
  const job = JOBS.find((j) => j.slug === choice.job);
  const country = COUNTRIES.find((c) => c.code === choice.country);
  const records = index.cell(choice.country, choice.job, year);
  if (records.length === 0 || job === undefined || country === undefined) return markup``;
  const width = 720;
  const left = 70;
  const plot = width - left - 20;
  const top = 20;
  const rowHeight = 56;
  const height = top + records.length * rowHeight + 40;
  const max = Math.max(...records.map((r) => r.p90));
  const step = axisStep(max);
  const scaleMax = Math.ceil(max / step) * step;
  const x = (v: number) => left + (v / scaleMax) * plot;
  const ticks = Array.from({ length: Math.round(scaleMax / step) + 1 }, (_, i) => i * step);
  const axisY = top + records.length * rowHeight + 8;
  const title = `Pay distribution of a ${job.title.toLowerCase()} in ${country.name} by level, ${year}: 10th–90th percentile (light), 25th–75th (dark), median (line)`;
  const ordered = LEVELS.map((l) => records.find((r) => r.level === l)).filter(
    (r) => r !== undefined,
  );
  return markup`<figure>
    <svg
      viewBox="0 0 ${width} ${height}"
      width="100%"
      role="img"
      aria-labelledby="chart-levels-title"
    >
      <title id="chart-levels-title">${title}</title>
      ${ticks.map(
        (t) =>
          markup`<line x1="${x(t)}" x2="${x(t)}" y1="${top}" y2="${axisY}" stroke="#d8dee7" /><text
              x="${x(t)}"
              y="${axisY + 16}"
              font-size="11"
              text-anchor="middle"
              fill="#4a5566"
              >${thousands(t)}</text
            >`,
      )}
      ${ordered.map((r, i) => {
        const y = top + i * rowHeight + 8;
        return markup`<text
            x="${left - 8}"
            y="${y + 22}"
            font-size="12"
            text-anchor="end"
            fill="#1b2430"
            >${r.level}</text
          >
          <rect
            x="${x(r.p10)}"
            y="${y + 6}"
            width="${x(r.p90) - x(r.p10)}"
            height="24"
            fill="#b9d3ee"
            ><title>${r.level}: p10 ${euros.format(r.p10)}, p90 ${euros.format(r.p90)}</title></rect
          >
          <rect
            x="${x(r.p25)}"
            y="${y + 6}"
            width="${x(r.p75) - x(r.p25)}"
            height="24"
            fill="#4a8bd0"
            ><title>${r.level}: p25 ${euros.format(r.p25)}, p75 ${euros.format(r.p75)}</title></rect
          >
          <line
            x1="${x(r.median)}"
            x2="${x(r.median)}"
            y1="${y + 2}"
            y2="${y + 34}"
            stroke="#0f1722"
            stroke-width="3"
          />
          <text x="${x(r.median)}" y="${y + 46}" font-size="11" text-anchor="middle" fill="#1b2430"
            >${euros.format(r.median)}</text
          >`;
      })}
    </svg>
    <figcaption>${title}, from the data release loaded on this server.</figcaption>
  </figure>`;
}
