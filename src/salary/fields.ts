import type { Column } from '../formats/index.js';
import { AppError } from '../errors/index.js';
import type { ReleaseRecord } from '../releases/index.js';

/** Full-time hours a year behind the hourly equivalents: 40 hours × 52 weeks. */
export const FULL_TIME_HOURS_PER_YEAR = 2080;

type Value = number | string | null;

interface ExtraField {
  readonly column: Column;
  readonly value: (record: ReleaseRecord, previous: ReleaseRecord | undefined) => Value;
}

/** A EUR figure in the currency the country used that year (ECB annual average rate). */
export const local = (r: ReleaseRecord, v: number): number => Math.round(v * r.fx_rate);

/**
 * Standard fields that were custom fields before: still accepted in `fields=` (so existing
 * requests keep working), and always present anyway.
 */
export const FORMERLY_CUSTOM_FIELDS: readonly string[] = Object.freeze([
  'local_currency',
  'local_median',
]);

/**
 * Custom fields (Business and Enterprise), chosen with `fields=`; they follow the standard
 * fields in this order in every format.
 */
export const EXTRA_FIELDS: Readonly<Record<string, ExtraField>> = Object.freeze({
  p10: {
    column: { name: 'p10', type: 'integer', description: '10th percentile, EUR a year.' },
    value: (r) => r.p10,
  },
  p90: {
    column: { name: 'p90', type: 'integer', description: '90th percentile, EUR a year.' },
    value: (r) => r.p90,
  },
  mean: {
    column: { name: 'mean', type: 'integer', description: 'Mean, EUR a year.' },
    value: (r) => r.mean,
  },
  fx_rate: {
    column: {
      name: 'fx_rate',
      type: 'number',
      description: 'Units of local currency per EUR (ECB annual average).',
    },
    value: (r) => r.fx_rate,
  },
  local_p25: {
    column: {
      name: 'local_p25',
      type: 'integer',
      description: '25th percentile in local currency.',
    },
    value: (r) => local(r, r.p25),
  },
  local_p75: {
    column: {
      name: 'local_p75',
      type: 'integer',
      description: '75th percentile in local currency.',
    },
    value: (r) => local(r, r.p75),
  },
  monthly_median: {
    column: {
      name: 'monthly_median',
      type: 'integer',
      description: 'Median a month (annual / 12), EUR.',
    },
    value: (r) => Math.round(r.median / 12),
  },
  hourly_median: {
    column: {
      name: 'hourly_median',
      type: 'number',
      description: `Median an hour (annual / ${FULL_TIME_HOURS_PER_YEAR}), EUR, 2 decimals.`,
    },
    value: (r) => Math.round((r.median / FULL_TIME_HOURS_PER_YEAR) * 100) / 100,
  },
  yoy_median_pct: {
    column: {
      name: 'yoy_median_pct',
      type: 'number',
      description:
        'Change of the EUR median against the previous year, percent (1 decimal); null for the first year.',
    },
    value: (r, prev) =>
      prev === undefined ? null : Math.round((r.median / prev.median - 1) * 1000) / 10,
  },
});

export const EXTRA_FIELD_NAMES: readonly string[] = Object.freeze(Object.keys(EXTRA_FIELDS));

/** Parses `fields=p10,mean`: known names in the canonical order; 400 listing the allowed ones. */
export function parseFields(raw: string | undefined): readonly string[] {
  if (raw === undefined || raw === '') return [];
  const requested = raw
    .split(',')
    .map((f) => f.trim())
    .filter((f) => !FORMERLY_CUSTOM_FIELDS.includes(f));
  const unknown = requested.filter((f) => !EXTRA_FIELD_NAMES.includes(f));
  if (unknown.length > 0) {
    throw AppError.invalidParams([
      { name: 'fields', reason: `unknown field ${unknown.join(', ')}`, allowed: EXTRA_FIELD_NAMES },
    ]);
  }
  return EXTRA_FIELD_NAMES.filter((f) => requested.includes(f));
}
