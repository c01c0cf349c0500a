import type { ReleaseRecord } from '../../src/releases/format.js';
import type { CountryMeans } from './country-means.js';
import type { JobRatioModel } from './job-ratio-model.js';
import type { OccupationEvidence } from './occupation-evidence.js';

/**
 * `confidence` and `confidence_note` of a record, from the evidence behind it (docs/data.md §1):
 *
 *   high    the job's ratio comes from the country's own unit-group table, and the country mean
 *           of the year is published;
 *   medium  own unit-group table with a mean one year from a published one (projection, back-cast
 *           or the Dutch per-job conversion), or the country's own major-group table (the job set
 *           within its group by the pooled model) in a published year or one year from it;
 *   low     the job's group is borrowed from EU27, or the mean is two or more years from a
 *           published one (projection to the current year, back-cast before 2018).
 */

export type Confidence = ReleaseRecord['confidence'];
type Job = 'unit' | 'group' | 'borrowed';
type Time = 'published' | 'short' | 'long';

/** First back-cast year still counted as one survey step from a published mean. */
export const SHORT_BACKCAST_FROM = 2018;
/** Years of the Dutch mean converted from CBS wages per job (published, not Eurostat). */
const NL_CBS_YEARS = [2019, 2020, 2021, 2022, 2023];

export function confidenceOf(job: Job, time: Time): Confidence {
  if (job === 'borrowed' || time === 'long') return 'low';
  if (job === 'unit' && time === 'published') return 'high';
  return 'medium';
}

export interface ConfidenceContext {
  readonly countryMeans: CountryMeans;
  readonly jobModel: JobRatioModel;
  readonly evidence: OccupationEvidence;
  readonly groupOf: (job: string) => number;
}

export function recordConfidence(
  ctx: ConfidenceContext,
  country: string,
  job: string,
  year: number,
): { confidence: Confidence; confidence_note: string } {
  const [time, timeNote] = timeEvidence(ctx.countryMeans, country, year);
  const [kind, jobNote] = jobEvidence(ctx, country, job);
  return { confidence: confidenceOf(kind, time), confidence_note: `${jobNote}; ${timeNote}` };
}

function jobEvidence(ctx: ConfidenceContext, country: string, job: string): [Job, string] {
  const table = ctx.evidence.countries.find((ev) => ev.country === country);
  const row = table?.jobs.get(job);
  if (table && row) return ['unit', `own occupation table ${table.label} (${row.row})`];
  const g = ctx.groupOf(job);
  const level = ctx.jobModel.groupLevels.get(country)?.get(g);
  if (!level?.table) return ['borrowed', `ISCO group ${g} borrowed from EU27 (Eurostat SES 2022)`];
  return ['group', `own ${level.table.label} ISCO group ${g}, job within group pooled`];
}

function timeEvidence(cm: CountryMeans, country: string, year: number): [Time, string] {
  const years = cm.byCountry.get(country);
  const cy = years?.get(year);
  if (!years || !cy) throw new Error(`confidence: no country mean for ${country} ${year}`);
  if (cy.basis === 'published') return ['published', `mean published (Eurostat ${year})`];
  if (cy.basis === 'projected') {
    const last = Math.max(...[...years].filter(([, v]) => v.basis !== 'projected').map(([y]) => y));
    const ahead = year - last;
    return [ahead <= 1 ? 'short' : 'long', `mean projected ${ahead} yr past ${last}`];
  }
  if (country === 'NL' && NL_CBS_YEARS.includes(year))
    return ['short', 'mean from CBS pay per job'];
  return [
    year >= SHORT_BACKCAST_FROM ? 'short' : 'long',
    `mean back-cast from Eurostat SES (${year})`,
  ];
}
