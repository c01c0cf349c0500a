import { DEFAULT_PLANS, PLAN_IDS, type Plan, type PlanId } from './plans.js';

/** Per-plan numbers an operator may change through PLAN_OVERRIDES (JSON). */
export interface PlanOverride {
  /** Requests per window; null makes the plan unlimited. */
  requestLimit?: number | null;
  priceCents?: number | null;
  historyYears?: number | null;
}
export type PlanOverrides = Partial<Record<PlanId, PlanOverride>>;

const OVERRIDABLE = ['requestLimit', 'priceCents', 'historyYears'] as const;

/** Parses PLAN_OVERRIDES, e.g. `{"free":{"requestLimit":1000000}}`; throws saying what is wrong. */
export function parsePlanOverrides(raw: string | undefined): PlanOverrides {
  if (raw === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new Error('must be a JSON object such as {"free":{"requestLimit":1000}}');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error('must be a JSON object keyed by plan id');
  }
  const result: PlanOverrides = {};
  for (const [planId, override] of Object.entries(parsed)) {
    if (!(PLAN_IDS as readonly string[]).includes(planId)) {
      throw new Error(`unknown plan "${planId}" (plans: ${PLAN_IDS.join(', ')})`);
    }
    if (typeof override !== 'object' || override === null) {
      throw new Error(`"${planId}" must be an object`);
    }
    for (const [field, value] of Object.entries(override as Record<string, unknown>)) {
      if (!(OVERRIDABLE as readonly string[]).includes(field)) {
        throw new Error(
          `"${planId}.${field}" cannot be overridden (fields: ${OVERRIDABLE.join(', ')})`,
        );
      }
      if (value !== null && (!Number.isInteger(value) || (value as number) < 0)) {
        throw new Error(`"${planId}.${field}" must be a whole number ≥ 0 or null`);
      }
    }
    result[planId as PlanId] = override as PlanOverride;
  }
  return result;
}

/** The plans in force: the defaults with the operator's overrides applied. */
export function resolvePlans(overrides: PlanOverrides = {}): Readonly<Record<PlanId, Plan>> {
  const plans = {} as Record<PlanId, Plan>;
  for (const id of PLAN_IDS) {
    const base = DEFAULT_PLANS[id];
    const o = overrides[id] ?? {};
    const window = base.limit?.window ?? 'day';
    plans[id] = Object.freeze({
      ...base,
      limit:
        o.requestLimit === undefined
          ? base.limit
          : o.requestLimit === null
            ? null
            : { requests: o.requestLimit, window },
      priceCents: o.priceCents === undefined ? base.priceCents : o.priceCents,
      historyYears: o.historyYears === undefined ? base.historyYears : o.historyYears,
    });
  }
  return Object.freeze(plans);
}

/** The lowest plan for which `has` is true: what a 403 names as `required_plan`. */
export function lowestPlanWith(
  plans: Readonly<Record<PlanId, Plan>>,
  has: (plan: Plan) => boolean,
): Plan | undefined {
  return PLAN_IDS.map((id) => plans[id]).find(has);
}

/** The terms of an Enterprise contract that change the plan's numbers. */
export interface ContractTerms {
  price_cents: number;
  /** Requests per UTC day; null: unlimited. */
  request_limit: number | null;
  sla_percent: number;
  formats: readonly string[];
}

/** The Enterprise plan as a contract sets it for one account. */
export function applyContract(plan: Plan, contract: ContractTerms | null): Plan {
  if (contract === null || plan.id !== 'enterprise') return plan;
  return Object.freeze({
    ...plan,
    priceCents: contract.price_cents,
    limit:
      contract.request_limit === null
        ? null
        : { requests: contract.request_limit, window: 'day' as const },
    slaPercent: contract.sla_percent,
    formats: plan.formats.filter((f) => contract.formats.includes(f)),
  });
}
