import { JOBS, LEVELS, type Level } from '../../src/catalog/jobs.js';
import { median, pow } from './math.js';
import type { PayRow } from './pay-rows.js';

/**
 * Step 4: each job's pay by seniority level (docs/data.md §6). A level is a stage of a career in
 * the job: junior 1–3 years, mid 4–10, senior 11–20, lead 21 or more (or the top of a pay scale).
 *
 * Where pay in a job is set by statutory or collectively agreed scales (physicians, nurses,
 * secondary teachers, care workers), the spread from junior to lead is the ratio of the scale's
 * top of a normal career to its entry point, as the median over the countries whose scales the
 * sources hold; the steps between follow the shape of pay by years of service of all employees
 * (INE 2014). For every other job, levels are INE's published pay by years of service for the
 * job's ISCO major group. Level ratios are normalised so that the employment-weighted mean of the
 * levels is the job's mean.
 */

export const TENURE_FILE = 'es_ine_ees_ocupacion_antiguedad_2014';
/** INE tenure band of each level. */
export const LEVEL_TENURE: Readonly<Record<Level, string>> = Object.freeze({
  junior: 'seniority 1-3 years',
  mid: 'seniority 4-10 years',
  senior: 'seniority 11-20 years',
  lead: 'seniority 21-29 years',
});

/** Assumed shares of a job's employees at each level (no source publishes them). */
export const LEVEL_WEIGHTS: Readonly<Record<Level, number>> = Object.freeze({
  junior: 0.25,
  mid: 0.35,
  senior: 0.3,
  lead: 0.1,
});

/** A scale's entry and top-of-career amounts: one country's evidence of a job's spread. */
export interface ScalePair {
  readonly job: string;
  readonly country: string;
  readonly source: string;
  readonly refPeriod: string;
  readonly entry: string;
  readonly top: string;
}

/** Entry and top of a normal career on each scale the sources hold (docs/data.md §6 names them). */
export const SCALE_PAIRS: readonly ScalePair[] = Object.freeze([
  {
    job: 'physician',
    country: 'DE',
    source: 'de_tarif_aerzte_pflege_scales_2014_2026',
    refPeriod: '2024-04',
    entry: 'grade Ä1 step 1',
    top: 'grade Ä3 step 3',
  },
  {
    job: 'physician',
    country: 'RO',
    source: 'ro_lege153_salarii_baza_medici_2022',
    refPeriod: '2022',
    entry: 'grade resident year 1',
    top: 'grade top grade',
  },
  {
    job: 'physician',
    country: 'GR',
    source: 'gr_public_pay_scales_esy_eniaio_2016_2017',
    refPeriod: '2017',
    entry: 'grade Ειδικευόμενος',
    top: 'grade Διευθυντής',
  },
  {
    job: 'physician',
    country: 'FR',
    source: 'fr_grilles_fonction_publique_enseignants_infirmiers_medecins_2023_2024',
    refPeriod: '2023-07',
    entry: 'step 1',
    top: 'step 12',
  },
  {
    job: 'nurse',
    country: 'DE',
    source: 'de_tarif_aerzte_pflege_scales_2014_2026',
    refPeriod: '2024-03',
    entry: 'grade P 7 step 2',
    top: 'grade P 9 step 6',
  },
  {
    job: 'nurse',
    country: 'IE',
    source: 'ie_inmo_hse_staff_nurse_scale_2019',
    refPeriod: '2019-03',
    entry: 'enhanced scale point 1',
    top: 'enhanced scale top',
  },
  {
    job: 'nurse',
    country: 'FR',
    source: 'fr_grilles_fonction_publique_enseignants_infirmiers_medecins_2023_2024',
    refPeriod: '2024-01',
    entry: 'grade classe normale step 1',
    top: 'grade classe supérieure step 10',
  },
  {
    job: 'secondary-teacher',
    country: 'IE',
    source: 'ie_tui_teachers_common_basic_scale_2020_2024',
    refPeriod: '2024-01',
    entry: 'scale point 1',
    top: 'scale point 25',
  },
  {
    job: 'secondary-teacher',
    country: 'AT',
    source: 'at_lehrer_entlohnung_pd_2025',
    refPeriod: '2025',
    entry: 'grade pd step 1',
    top: 'grade pd step 7',
  },
  {
    job: 'secondary-teacher',
    country: 'FR',
    source: 'fr_grilles_fonction_publique_enseignants_infirmiers_medecins_2023_2024',
    refPeriod: '2024-01',
    entry: 'grade classe normale step 1',
    top: 'grade classe normale step 11',
  },
  {
    job: 'secondary-teacher',
    country: 'DE',
    source: 'de_tarif_aerzte_pflege_scales_2014_2026',
    refPeriod: '2022-12',
    entry: 'grade E 13 step 1',
    top: 'grade E 13 step 6',
  },
  {
    job: 'secondary-teacher',
    country: 'PL',
    source: 'pl_men_minimalne_stawki_nauczycieli_2023_2024',
    refPeriod: '2024',
    entry: 'stage nauczyciel początkujący',
    top: 'stage nauczyciel dyplomowany',
  },
  {
    job: 'care-worker',
    country: 'DE',
    source: 'de_tarif_aerzte_pflege_scales_2014_2026',
    refPeriod: '2024-03',
    entry: 'grade P 5 step 1',
    top: 'grade P 6 step 6',
  },
]);

export interface SeniorityProfile {
  /** job → level → pay of the level over the job's mean. */
  readonly ratio: ReadonlyMap<string, Readonly<Record<Level, number>>>;
  /** job → lead / junior and where it comes from. */
  readonly spread: ReadonlyMap<string, { readonly leadOverJunior: number; readonly from: string }>;
  /** Fraction of the junior-to-lead log gap reached at each level (INE, all occupations). */
  readonly shape: Readonly<Record<Level, number>>;
  readonly scales: readonly (ScalePair & { readonly ratio: number })[];
}

function scaleAmount(rows: readonly PayRow[], pair: ScalePair, breakdown: string): number {
  const hits = rows.filter(
    (r) =>
      r.source === pair.source &&
      r.refPeriod === pair.refPeriod &&
      r.jobs.includes(pair.job) &&
      (r.breakdown === breakdown ||
        (r.breakdown.startsWith(breakdown) && !/\d/.test(r.breakdown[breakdown.length] ?? ''))),
  );
  const first = hits[0];
  if (!first) throw new Error(`scale ${pair.source} ${pair.refPeriod}: no "${breakdown}" row`);
  return first.value;
}

export function buildSeniority(rows: readonly PayRow[]): SeniorityProfile {
  const tenure = rows.filter((r) => r.source === TENURE_FILE && r.statistic === 'mean');
  const band = (jobs: (r: PayRow) => boolean, level: Level) => {
    const hit = tenure.find((r) => jobs(r) && r.breakdown === LEVEL_TENURE[level]);
    if (!hit) throw new Error(`${TENURE_FILE}: no ${LEVEL_TENURE[level]} row`);
    return hit.value;
  };
  const all = (level: Level) => band((r) => r.jobs.includes('total'), level);
  const gapAll = Math.log(all('lead') / all('junior'));
  const shape = Object.fromEntries(
    LEVELS.map((l) => [l, Math.log(all(l) / all('junior')) / gapAll]),
  ) as Record<Level, number>;

  const scales = SCALE_PAIRS.map((p) => ({
    ...p,
    ratio: scaleAmount(rows, p, p.top) / scaleAmount(rows, p, p.entry),
  }));
  const ratio = new Map<string, Record<Level, number>>();
  const spread = new Map<string, { leadOverJunior: number; from: string }>();
  for (const job of JOBS) {
    const own = scales.filter((s) => s.job === job.slug);
    let raw: Record<Level, number>;
    if (own.length > 0) {
      const g = Math.exp(median(own.map((s) => Math.log(s.ratio))));
      raw = Object.fromEntries(LEVELS.map((l) => [l, pow(g, shape[l])])) as Record<Level, number>;
      spread.set(job.slug, {
        leadOverJunior: g,
        from: `pay scales (${own.map((s) => s.country).join(', ')}), median`,
      });
    } else {
      const ofJob = (r: PayRow) => r.jobs.includes(job.slug);
      const has = LEVELS.every((l) =>
        tenure.some((r) => ofJob(r) && r.breakdown === LEVEL_TENURE[l]),
      );
      const pick = has ? ofJob : (r: PayRow) => r.jobs.includes('total');
      raw = Object.fromEntries(
        LEVELS.map((l) => [l, band(pick, l) / band(pick, 'junior')]),
      ) as Record<Level, number>;
      spread.set(job.slug, {
        leadOverJunior: raw.lead,
        from: has
          ? `INE 2014 pay by years of service, ISCO group ${job.iscoCode[0] ?? ''}`
          : 'INE 2014 pay by years of service, all occupations',
      });
    }
    for (let i = 1; i < LEVELS.length; i++) {
      const lo = raw[LEVELS[i - 1] ?? 'junior'];
      const hi = raw[LEVELS[i] ?? 'junior'];
      if (!(hi > lo)) throw new Error(`seniority of ${job.slug} does not increase`);
    }
    const weighted = LEVELS.reduce((s, l) => s + LEVEL_WEIGHTS[l] * raw[l], 0);
    ratio.set(
      job.slug,
      Object.fromEntries(LEVELS.map((l) => [l, raw[l] / weighted])) as Record<Level, number>,
    );
  }
  return { ratio, spread, shape, scales };
}
