export {
  PLAN_IDS,
  FORMATS,
  DEFAULT_PLANS,
  type Plan,
  type PlanId,
  type Format,
  type LimitWindow,
  type RequestLimit,
} from './plans.js';
export {
  parsePlanOverrides,
  resolvePlans,
  lowestPlanWith,
  applyContract,
  type ContractTerms,
  type PlanOverride,
  type PlanOverrides,
} from './catalog.js';
export {
  assertPlanHas,
  assertFormatAllowed,
  assertReleaseAllowed,
  assertYearAllowed,
  earliestYear,
} from './access.js';
