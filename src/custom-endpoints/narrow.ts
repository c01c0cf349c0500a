import { COUNTRY_CODES } from '../catalog/index.js';
import { JOB_SLUGS, LEVELS } from '../catalog/index.js';
import { AppError } from '../errors/index.js';
import { earliestYear, type Format, type Plan } from '../plans/index.js';
import { negotiateFormat, type Selection } from '../salary/index.js';
import { normalCountry, PARAMETER_NAMES, type CustomQuery, type ParameterName } from './query.js';

/** The request parameters of a custom endpoint as they arrive (validated as strings). */
export type RequestParameters = Partial<Record<ParameterName, string>>;

/** The years of the release, as the salary index knows them. */
export interface YearsKnown {
  readonly currentYear: number;
  readonly years: readonly number[];
}

/**
 * The years a saved query covers in this release for this plan; undefined for the current
 * year (resolved by the salary service, as every route does).
 */
export function savedYears(
  query: CustomQuery,
  plan: Plan,
  known: YearsKnown,
): readonly number[] | undefined {
  const spec = query.years ?? 'current';
  const { currentYear, years } = known;
  if (spec === 'current') return undefined;
  if (spec === 'all') {
    const from = earliestYear(plan, currentYear, years[0] ?? currentYear);
    return years.filter((y) => y >= from);
  }
  if (typeof spec === 'string') {
    const n = Number(spec.slice('last '.length));
    return years.filter((y) => y > currentYear - n && y <= currentYear);
  }
  return years.filter((y) => y >= spec.from && y <= spec.to);
}

const outside = (name: string, value: string, allowed: readonly (string | number)[]): AppError =>
  AppError.invalidParams(
    [{ name, reason: `${value} is outside what this endpoint serves`, allowed }],
    `${name}=${value} is not among the values this custom endpoint serves; allowed: ${allowed.join(', ')}.`,
  );

/**
 * The selection one request reads: the saved query narrowed by the request's parameters,
 * each within the saved values (400 naming the allowed ones); a parameter the endpoint does
 * not leave open is 400 naming the ones it does. The format: the request's (format= or
 * Accept) where `format` is open, else the saved one.
 */
export function narrow(
  query: CustomQuery,
  open: readonly ParameterName[],
  params: RequestParameters,
  accept: string | undefined,
  plan: Plan,
  known: YearsKnown | undefined,
): { selection: Selection; format: Format } {
  const closed = PARAMETER_NAMES.filter((p) => params[p] !== undefined && !open.includes(p));
  if (closed.length > 0) {
    throw AppError.invalidParams(
      closed.map((name) => ({
        name,
        reason: 'this custom endpoint does not take it',
        allowed: open,
      })),
      `This custom endpoint takes ${open.length === 0 ? 'no parameters' : `only ${open.join(', ')}`}.`,
    );
  }
  const selection: Selection = {};
  if (query.fields !== undefined && query.fields.length > 0)
    selection.fields = query.fields.join(',');

  const countries = query.countries ?? COUNTRY_CODES;
  if (params.country !== undefined) {
    const code = normalCountry(params.country);
    if (!countries.includes(code)) throw outside('country', params.country, countries);
    selection.countries = [code];
  } else if (query.countries !== undefined) selection.countries = query.countries;

  const jobs = query.jobs ?? JOB_SLUGS;
  if (params.job !== undefined) {
    if (!jobs.includes(params.job)) throw outside('job', params.job, jobs);
    selection.jobs = [params.job];
  } else if (query.jobs !== undefined) selection.jobs = query.jobs;

  const levels: readonly string[] = query.levels ?? LEVELS;
  if (params.level !== undefined) {
    if (!levels.includes(params.level)) throw outside('level', params.level, levels);
    selection.levels = [params.level];
  } else if (query.levels !== undefined) selection.levels = query.levels;

  if (known !== undefined) {
    const years = savedYears(query, plan, known) ?? [known.currentYear];
    if (params.year !== undefined) {
      const year = Number(params.year);
      if (!years.includes(year)) throw outside('year', params.year, years);
      selection.years = [year];
    } else if (query.years === 'all') selection.year = 'all';
    else if (query.years !== undefined && query.years !== 'current') {
      if (years.length === 0) {
        throw new AppError(
          'NO_DATA',
          'The years this custom endpoint covers are not in the current data release.',
          {
            extensions: { available_years: known.years },
          },
        );
      }
      selection.years = years;
    }
  }

  const saved = query.format ?? 'json';
  const format =
    !open.includes('format') || (params.format === undefined && anyType(accept))
      ? saved
      : negotiateFormat(params.format as Format | undefined, accept);
  return { selection, format };
}

/** No Accept header, or one that takes anything: the saved format answers. */
function anyType(accept: string | undefined): boolean {
  return (
    accept === undefined ||
    accept
      .split(',')
      .every((part) => ['', '*/*', 'application/*'].includes(part.split(';')[0]!.trim()))
  );
}
