/**
 * Where a salary sits in a modelled pay distribution known by five published percentiles
 * (docs/pay-position.md). Between two published percentiles the distribution is log-normal
 * piece by piece: the normal score z is linear in ln(salary) between the knots, so each knot
 * maps exactly to its own percentile. Beyond p10 and p90 it is the log-normal fitted to p10
 * and p90, which meets the inner pieces at both knots.
 */

/** The five published percentiles of one record (EUR a year, ascending). */
export interface Percentiles {
  readonly p10: number;
  readonly p25: number;
  readonly median: number;
  readonly p75: number;
  readonly p90: number;
}

export const BANDS = [
  'below_p10',
  'p10_p25',
  'p25_p50',
  'p50_p75',
  'p75_p90',
  'above_p90',
] as const;
export type Band = (typeof BANDS)[number];

/** Standard normal quantiles of the 10th and 25th percentiles (the 90th and 75th by symmetry). */
const Z10 = 1.2815515655446004;
const Z25 = 0.6744897501960817;

/** Reported percentiles stay inside this range: the model says nothing finer about the extremes. */
export const PERCENTILE_FLOOR = 0.1;
export const PERCENTILE_CEILING = 99.9;

/** The log-normal of the tails: mean and standard deviation of ln(salary). */
export function tailFit(p: Percentiles): { logMean: number; logSd: number } {
  const low = Math.log(p.p10);
  const high = Math.log(p.p90);
  return { logMean: (low + high) / 2, logSd: (high - low) / (2 * Z10) };
}

/** The normal score of `salary` in the distribution (−Infinity/Infinity in a degenerate tail). */
export function normalScore(salary: number, p: Percentiles): number {
  const knots: readonly [number, number][] = [
    [p.p10, -Z10],
    [p.p25, -Z25],
    [p.median, 0],
    [p.p75, Z25],
    [p.p90, Z10],
  ];
  const x = Math.log(salary);
  if (salary < p.p10 || salary > p.p90) {
    const { logMean, logSd } = tailFit(p);
    if (logSd === 0) return salary < p.p10 ? -Infinity : Infinity;
    return (x - logMean) / logSd;
  }
  // Inside [p10, p90]: the piece whose knots enclose the salary; equal knots are skipped.
  for (let i = 1; i < knots.length; i++) {
    const [upper, zUpper] = knots[i]!;
    if (salary > upper) continue;
    const [lower, zLower] = knots[i - 1]!;
    if (upper === lower) return zUpper;
    const share = (x - Math.log(lower)) / (Math.log(upper) - Math.log(lower));
    return zLower + share * (zUpper - zLower);
  }
  return Z10;
}

/** The percentile (0–100, one decimal, within the floor and ceiling) of a salary. */
export function percentileOf(salary: number, p: Percentiles): number {
  const share = normalCdf(normalScore(salary, p)) * 100;
  const bounded = Math.min(PERCENTILE_CEILING, Math.max(PERCENTILE_FLOOR, share));
  return Math.round(bounded * 10) / 10;
}

/** Which published percentiles enclose the salary; a knot belongs to the band above it, p90 to the one below. */
export function bandOf(salary: number, p: Percentiles): Band {
  if (salary < p.p10) return 'below_p10';
  if (salary < p.p25) return 'p10_p25';
  if (salary < p.median) return 'p25_p50';
  if (salary < p.p75) return 'p50_p75';
  if (salary <= p.p90) return 'p75_p90';
  return 'above_p90';
}

/** Φ(z), the standard normal distribution function (|error| < 1e-7 through erf). */
export function normalCdf(z: number): number {
  if (z === Infinity) return 1;
  if (z === -Infinity) return 0;
  return 0.5 * (1 + erf(z / Math.SQRT2));
}

/** erf by Abramowitz and Stegun 7.1.26 (absolute error below 1.5e-7). */
function erf(x: number): number {
  const sign = x < 0 ? -1 : 1;
  const a = Math.abs(x);
  const t = 1 / (1 + 0.3275911 * a);
  const poly =
    t *
    (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  return sign * (1 - poly * Math.exp(-a * a));
}
