/** Small numeric helpers shared by the model steps; no domain knowledge. */

/** Value at fraction t (0..1) of the way from a to b on a log scale. */
export function geometricInterpolate(a: number, b: number, t: number): number {
  return a * Math.pow(b / a, t);
}

/** Compound annual growth rate from `from` to `to` over `years` years. */
export function cagr(from: number, to: number, years: number): number {
  return Math.pow(to / from, 1 / years) - 1;
}

export function clamp(x: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, x));
}

/** Ordinary least squares fit y = intercept + slope · x. */
export function linearFit(
  xs: readonly number[],
  ys: readonly number[],
): { slope: number; intercept: number } {
  if (xs.length !== ys.length || xs.length < 2)
    throw new Error('linearFit needs two or more points');
  const mx = mean(xs);
  const my = mean(ys);
  let sxy = 0;
  let sxx = 0;
  xs.forEach((x, i) => {
    sxy += (x - mx) * ((ys[i] ?? NaN) - my);
    sxx += (x - mx) ** 2;
  });
  const slope = sxy / sxx;
  return { slope, intercept: my - slope * mx };
}

export function mean(xs: readonly number[]): number {
  return xs.reduce((s, x) => s + x, 0) / xs.length;
}

export function weightedMean(xs: readonly number[], ws: readonly number[]): number {
  return xs.reduce((s, x, i) => s + x * (ws[i] ?? NaN), 0) / ws.reduce((s, w) => s + w, 0);
}

/** Population variance of xs with weights ws (the weights need not sum to 1). */
export function weightedVariance(xs: readonly number[], ws: readonly number[]): number {
  const m = weightedMean(xs, ws);
  return weightedMean(
    xs.map((x) => (x - m) ** 2),
    ws,
  );
}

/** Log-normal σ whose mean/median ratio is `ratio`: mean/median = exp(σ²/2). */
export function sigmaFromMeanMedian(ratio: number): number {
  if (!(ratio > 1)) throw new Error(`mean/median ratio ${ratio} is not above 1`);
  return Math.sqrt(2 * Math.log(ratio));
}

export function roundTo(x: number, decimals: number): number {
  const f = 10 ** decimals;
  return Math.round(x * f) / f;
}

/** Standard normal quantiles of the published percentiles. */
export const Z = Object.freeze({
  p10: -1.2815515655446004,
  p25: -0.6744897501960817,
  p75: 0.6744897501960817,
  p90: 1.2815515655446004,
});
