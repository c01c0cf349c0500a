import { AppError } from '../errors/index.js';
import { lowestPlanWith } from './catalog.js';
import { PLAN_IDS, type Format, type Plan, type PlanId } from './plans.js';

type Plans = Readonly<Record<PlanId, Plan>>;

function notInPlan(plans: Plans, current: Plan, has: (p: Plan) => boolean, what: string): AppError {
  const required = lowestPlanWith(plans, has);
  const from =
    required === undefined
      ? 'no plan includes it'
      : `the ${required.name} plan and higher include it`;
  // An Enterprise contract can narrow its plan: a plan at or below it has the feature, so no
  // upgrade helps; the contract does.
  const detail =
    required !== undefined && PLAN_IDS.indexOf(required.id) <= PLAN_IDS.indexOf(current.id)
      ? `${what}: not included in this account's ${current.name} contract.`
      : `${what}: not included in the ${current.name} plan; ${from}.`;
  return new AppError('FEATURE_NOT_IN_PLAN', detail, {
    extensions: { required_plan: required?.id ?? null, current_plan: current.id },
  });
}

/** Throws 403 naming the lowest plan that has the feature, when `plan` does not. */
export function assertPlanHas(
  plans: Plans,
  plan: Plan,
  has: (p: Plan) => boolean,
  what: string,
): void {
  if (!has(plan)) throw notInPlan(plans, plan, has, what);
}

/** Throws 403 naming the lowest plan with the format, when `plan` does not include it. */
export function assertFormatAllowed(plans: Plans, plan: Plan, format: Format): void {
  if (!plan.formats.includes(format)) {
    throw notInPlan(plans, plan, (p) => p.formats.includes(format), `The ${format} format`);
  }
}

/** The earliest year a plan may read, given the dataset's current year. */
export function earliestYear(plan: Plan, currentYear: number, firstYear: number): number {
  return plan.historyYears === null
    ? firstYear
    : Math.max(firstYear, currentYear - plan.historyYears);
}

/** Throws 403 naming the lowest plan whose history depth reaches `year`. */
export function assertYearAllowed(
  plans: Plans,
  plan: Plan,
  year: number,
  currentYear: number,
): void {
  const back = currentYear - year;
  const reaches = (p: Plan): boolean => p.historyYears === null || p.historyYears >= back;
  if (back > 0 && !reaches(plan)) {
    throw notInPlan(
      plans,
      plan,
      reaches,
      `Data for ${year} (${back} year${back === 1 ? '' : 's'} back)`,
    );
  }
}

/**
 * Throws 403 naming the lowest plan that reaches a kept release `back` releases before the
 * active one (Free the active one, Developer and Business the previous too, Enterprise all).
 */
export function assertReleaseAllowed(
  plans: Plans,
  plan: Plan,
  version: string,
  back: number,
): void {
  const reaches = (p: Plan): boolean => p.releasesBack === null || p.releasesBack >= back;
  if (back > 0 && !reaches(plan)) {
    throw notInPlan(
      plans,
      plan,
      reaches,
      `Release ${version} (${back} release${back === 1 ? '' : 's'} before the active one)`,
    );
  }
}
