import { Z } from './math.js';

/**
 * Spread and mean of a cell whose p10 would fall below the annual full-time minimum wage
 * `floor`: the largest σ ≤ `sigma` with mean × exp(−σ²/2 + z₁₀ σ) ≥ floor, keeping the mean.
 * Where even SIGMA_MIN_AT_FLOOR cannot keep p10 at the floor, the mean is raised to the lowest
 * value that does (a full-time job cannot average below the minimum wage). docs/data.md §8.
 */
export function floorCell(
  mean: number,
  sigma: number,
  floor: number,
): { mean: number; sigma: number } {
  const p10 = (m: number, s: number) => m * Math.exp(-(s * s) / 2 + Z.p10 * s);
  if (floor <= 0 || p10(mean, sigma) >= floor) return { mean, sigma };
  const room = Math.log(mean / floor);
  const solved = room > 0 ? Z.p10 + Math.sqrt(Z.p10 * Z.p10 + 2 * room) : 0;
  if (solved >= SIGMA_MIN_AT_FLOOR) return { mean, sigma: solved };
  return { mean: Math.ceil(floor / p10(1, SIGMA_MIN_AT_FLOOR)), sigma: SIGMA_MIN_AT_FLOOR };
}

/** Narrowest spread the minimum-wage floor may impose (p90/p10 ≈ 1.14). */
export const SIGMA_MIN_AT_FLOOR = 0.05;
