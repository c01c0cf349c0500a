/**
 * The plan matrix of the specification, as data, in one place. Every check of "may this
 * account do that" reads it; operators override numbers with PLAN_OVERRIDES.
 */
export const PLAN_IDS = ['free', 'developer', 'business', 'enterprise'] as const;
export type PlanId = (typeof PLAN_IDS)[number];

export const FORMATS = ['json', 'csv', 'xlsx', 'xml', 'parquet'] as const;
export type Format = (typeof FORMATS)[number];

export type LimitWindow = 'hour' | 'day';

export interface RequestLimit {
  readonly requests: number;
  readonly window: LimitWindow;
}

export interface Plan {
  readonly id: PlanId;
  readonly name: string;
  /** Order of the plans, used to name the lowest plan that has a feature. */
  readonly rank: number;
  /** Monthly price in euro cents; null when set by contract. */
  readonly priceCents: number | null;
  /** null: unlimited. */
  readonly limit: RequestLimit | null;
  readonly formats: readonly Format[];
  /** Years of history before the current year; null: the full archive. */
  readonly historyYears: number | null;
  /** Kept data releases reachable before the active one (release=, as_of=); null: every one. */
  readonly releasesBack: number | null;
  readonly bulk: boolean;
  readonly webhooks: boolean;
  /** Webhook endpoints per account (0 where the plan has no webhooks). */
  readonly maxWebhookEndpoints: number;
  readonly customEndpoints: boolean;
  readonly customFields: boolean;
  /** Renaming and choosing the fields of salary responses, per account. */
  readonly customSchemas: boolean;
  /** Scheduled bulk exports to the account's SFTP server. */
  readonly scheduledExports: boolean;
  readonly usageAnalytics: boolean;
  /** API keys per account; null: unlimited. 0: the plan needs no key. */
  readonly maxKeys: number | null;
  readonly ipAllowlist: boolean;
  readonly oauth: boolean;
  readonly scopedKeys: boolean;
  /** Guaranteed monthly uptime in percent; null: no SLA. */
  readonly slaPercent: number | null;
  /** The operator's compliance documents (SOC 2 reports), the access review. */
  readonly complianceReports: boolean;
}

export const DEFAULT_PLANS: Readonly<Record<PlanId, Plan>> = Object.freeze({
  free: {
    id: 'free',
    name: 'Free',
    rank: 0,
    priceCents: 0,
    limit: { requests: 100, window: 'hour' },
    formats: ['json'],
    historyYears: 0,
    releasesBack: 0,
    bulk: false,
    webhooks: false,
    maxWebhookEndpoints: 0,
    customEndpoints: false,
    customFields: false,
    customSchemas: false,
    scheduledExports: false,
    usageAnalytics: false,
    maxKeys: 0,
    ipAllowlist: false,
    oauth: false,
    scopedKeys: false,
    slaPercent: null,
    complianceReports: false,
  },
  developer: {
    id: 'developer',
    name: 'Developer',
    rank: 1,
    priceCents: 4900,
    limit: { requests: 10_000, window: 'day' },
    formats: ['json', 'csv'],
    historyYears: 1,
    releasesBack: 1,
    bulk: false,
    webhooks: false,
    maxWebhookEndpoints: 0,
    customEndpoints: false,
    customFields: false,
    customSchemas: false,
    scheduledExports: false,
    usageAnalytics: true,
    maxKeys: 1,
    ipAllowlist: false,
    oauth: false,
    scopedKeys: false,
    slaPercent: null,
    complianceReports: false,
  },
  business: {
    id: 'business',
    name: 'Business',
    rank: 2,
    priceCents: 19900,
    limit: { requests: 100_000, window: 'day' },
    formats: ['json', 'csv', 'xlsx'],
    historyYears: 3,
    releasesBack: 1,
    bulk: true,
    webhooks: true,
    maxWebhookEndpoints: 10,
    customEndpoints: false,
    customFields: true,
    customSchemas: false,
    scheduledExports: false,
    usageAnalytics: true,
    maxKeys: 5,
    ipAllowlist: true,
    oauth: false,
    scopedKeys: false,
    slaPercent: 99.5,
    complianceReports: false,
  },
  enterprise: {
    id: 'enterprise',
    name: 'Enterprise',
    rank: 3,
    priceCents: null,
    limit: null,
    formats: ['json', 'csv', 'xlsx', 'xml', 'parquet'],
    historyYears: null,
    releasesBack: null,
    bulk: true,
    webhooks: true,
    maxWebhookEndpoints: 50,
    customEndpoints: true,
    customFields: true,
    customSchemas: true,
    scheduledExports: true,
    usageAnalytics: true,
    maxKeys: null,
    ipAllowlist: true,
    oauth: true,
    scopedKeys: true,
    slaPercent: 99.9,
    complianceReports: true,
  },
} satisfies Record<PlanId, Plan>);
