/** Small numeric helpers shared by the model steps; no domain knowledge. */

export function clamp(x: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, x));
}

/**
 * x to the power y, the same bits on every Node line. `Math.pow` and `**` are not: V8's
 * implementation changed between Node 20 and Node 24 and rounds some results one unit apart,
 * enough to move a rounded figure by one and the release off its bytes. `exp` and `log` are the
 * same fdlibm ports on both, so the release is built from them (lint holds `**` and `Math.pow`
 * out of the build, a literal square aside).
 */
export function pow(x: number, y: number): number {
  return Math.exp(y * Math.log(x));
}

export function mean(xs: readonly number[]): number {
  return xs.reduce((s, x) => s + x, 0) / xs.length;
}

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] ?? NaN) : ((s[mid - 1] ?? NaN) + (s[mid] ?? NaN)) / 2;
}

export function weightedMean(xs: readonly number[], ws: readonly number[]): number {
  return xs.reduce((s, x, i) => s + x * (ws[i] ?? NaN), 0) / ws.reduce((s, w) => s + w, 0);
}

/** Ordinary (or weighted) least squares y = intercept + slope · x. */
export function linearFit(
  xs: readonly number[],
  ys: readonly number[],
  ws: readonly number[] = xs.map(() => 1),
): { slope: number; intercept: number } {
  if (xs.length !== ys.length || xs.length < 2)
    throw new Error('linearFit needs two or more points');
  const mx = weightedMean(xs, ws);
  const my = weightedMean(ys, ws);
  let sxy = 0;
  let sxx = 0;
  xs.forEach((x, i) => {
    const w = ws[i] ?? NaN;
    sxy += w * (x - mx) * ((ys[i] ?? NaN) - my);
    sxx += w * (x - mx) ** 2;
  });
  const slope = sxx > 0 ? sxy / sxx : 0;
  return { slope, intercept: my - slope * mx };
}

/** Standard normal quantiles of the published percentiles. */
export const Z = Object.freeze({
  p10: -1.2815515655446004,
  p25: -0.6744897501960817,
  median: 0,
  p75: 0.6744897501960817,
  p90: 1.2815515655446004,
});
export type Quantile = keyof typeof Z;

/** Standard normal cumulative distribution (Abramowitz–Stegun 7.1.26 via erf, |error| < 1.5e-7). */
export function normCdf(x: number): number {
  const t = 1 / (1 + (0.3275911 * Math.abs(x)) / Math.SQRT2);
  const poly =
    t *
    (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const erf = 1 - poly * Math.exp(-(x * x) / 2);
  return x >= 0 ? 0.5 * (1 + erf) : 0.5 * (1 - erf);
}

/** One log-normal component of a mixture: its weight, mean and σ of log pay. */
export interface LogNormal {
  readonly weight: number;
  readonly mean: number;
  readonly sigma: number;
}

/** Share of a weighted mixture of log-normals below `x`. */
export function mixtureCdf(parts: readonly LogNormal[], x: number): number {
  let total = 0;
  let below = 0;
  for (const p of parts) {
    const mu = Math.log(p.mean) - (p.sigma * p.sigma) / 2;
    total += p.weight;
    below += p.weight * normCdf((Math.log(x) - mu) / p.sigma);
  }
  return below / total;
}

/** The `q` quantile (0 < q < 1) of a mixture of log-normals, by bisection in log pay. */
export function mixtureQuantile(parts: readonly LogNormal[], q: number): number {
  let lo = Math.log(Math.min(...parts.map((p) => p.mean))) - 10;
  let hi = Math.log(Math.max(...parts.map((p) => p.mean))) + 10;
  for (let i = 0; i < 200 && hi - lo > 1e-12; i++) {
    const mid = (lo + hi) / 2;
    if (mixtureCdf(parts, Math.exp(mid)) < q) lo = mid;
    else hi = mid;
  }
  return Math.exp((lo + hi) / 2);
}

export function mixtureMean(parts: readonly LogNormal[]): number {
  return weightedMean(
    parts.map((p) => p.mean),
    parts.map((p) => p.weight),
  );
}

/** Quantile level of each published statistic. */
export const QUANTILE_LEVEL = Object.freeze({
  p10: 0.1,
  p25: 0.25,
  median: 0.5,
  p75: 0.75,
  p90: 0.9,
});
