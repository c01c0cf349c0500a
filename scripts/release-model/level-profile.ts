import { LEVELS, type Level } from '../../src/catalog/jobs.js';
import type { Inputs } from './inputs.js';
import { mean } from './math.js';

/**
 * Step 3: pay of each seniority level relative to the job's mean, from the CBS 2023 profile of
 * hourly wages by age. docs/data.md §4 explains the mapping and the weights.
 */

/** CBS age bands standing in for each level (unweighted mean of the bands' hourly wages). */
export const LEVEL_AGE_BANDS: Readonly<Record<Level, readonly string[]>> = Object.freeze({
  junior: ['25-29'],
  mid: ['30-34'],
  senior: ['35-39', '40-44'],
  lead: ['45-49'],
});

/** Assumed share of a job's employees at each level (a typical career pyramid). */
export const LEVEL_WEIGHTS: Readonly<Record<Level, number>> = Object.freeze({
  junior: 0.25,
  mid: 0.35,
  senior: 0.3,
  lead: 0.1,
});

export interface LevelProfile {
  readonly hourly: Readonly<Record<Level, number>>;
  /** Level ratio, normalised so Σ_level weight × ratio = 1. */
  readonly ratio: Readonly<Record<Level, number>>;
}

export function buildLevelProfile(inputs: Inputs): LevelProfile {
  const band = (label: string) => {
    const row = inputs.nl.find(
      (r) => r.table === '81431ENG' && r.breakdown === `A-U all activities; age ${label}`,
    );
    if (!row) throw new Error(`CBS age band ${label} not found`);
    return row.hourly;
  };
  const hourly = Object.fromEntries(
    LEVELS.map((l) => [l, mean(LEVEL_AGE_BANDS[l].map(band))]),
  ) as Record<Level, number>;
  const weighted = LEVELS.reduce((s, l) => s + LEVEL_WEIGHTS[l] * hourly[l], 0);
  const ratio = Object.fromEntries(LEVELS.map((l) => [l, hourly[l] / weighted])) as Record<
    Level,
    number
  >;
  return { hourly, ratio };
}
