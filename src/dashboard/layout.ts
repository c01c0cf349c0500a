import type { Principal } from '../auth/index.js';
import type { Plan } from '../plans/index.js';
import { markup, type Html } from '../lib/html.js';
import { csrfField } from './session.js';
import { PRODUCT_NAME } from '../lib/product-name.js';

export const BASE = '/dashboard';

/**
 * A page of a plan feature: shown in the navigation to the plans that have it (`has`); a lower
 * plan is told on the overview, and on the page itself, which plan has it.
 */
export interface FeaturePage {
  path: string;
  label: string;
  /** What the feature is, for a sentence: "Webhooks come with the Business plan…". */
  what: string;
  has: (plan: Plan) => boolean;
}

export const FEATURE_PAGES: readonly FeaturePage[] = [
  { path: '/webhooks', label: 'Webhooks', what: 'Webhooks', has: (p) => p.webhooks },
  {
    path: '/exports',
    label: 'Exports',
    what: 'Scheduled bulk exports',
    has: (p) => p.scheduledExports,
  },
  { path: '/oauth-clients', label: 'OAuth clients', what: 'OAuth clients', has: (p) => p.oauth },
  {
    path: '/custom-endpoints',
    label: 'Custom endpoints',
    what: 'Custom endpoints',
    has: (p) => p.customEndpoints,
  },
  {
    path: '/compliance',
    label: 'Compliance',
    what: 'Compliance documents and the access review',
    has: (p) => p.complianceReports,
  },
  { path: '/sla', label: 'Uptime SLA', what: 'The uptime SLA', has: (p) => p.slaPercent !== null },
];

const feature = (path: string) => FEATURE_PAGES.find((f) => f.path === path) as FeaturePage;

export const NAV: readonly { path: string; label: string; show?: (p: Principal) => boolean }[] = [
  { path: '', label: 'Overview' },
  { path: '/usage', label: 'Usage' },
  { path: '/keys', label: 'API keys' },
  ...FEATURE_PAGES.map((f) => ({
    path: f.path,
    label: f.label,
    show: (p: Principal) => f.has(p.plan),
  })),
  { path: '/billing', label: 'Billing' },
  { path: '/account', label: 'Account' },
];

/** The lowest plan with a feature page's feature (undefined: no plan has it). */
export function lowestPlanFor(
  plans: Readonly<Record<string, Plan>>,
  path: string,
): Plan | undefined {
  const has = feature(path).has;
  return Object.values(plans)
    .sort((a, b) => a.rank - b.rank)
    .find(has);
}

/** What a plan without the feature of `path` sees there: which plan has it. */
export function notInPlan(plans: Readonly<Record<string, Plan>>, path: string, plan: Plan): Html {
  const f = feature(path);
  const lowest = lowestPlanFor(plans, path);
  if (lowest !== undefined && lowest.rank <= plan.rank)
    return markup`<p id="not-in-plan">
      ${f.what}: not included in this account's ${plan.name} contract. Your account manager can add
      them.
    </p>`;
  return markup`<p id="not-in-plan">
    ${f.what} come with the ${lowest?.name ?? 'Enterprise'} plan${lowest?.id === 'enterprise' ? '' : ' and above'}.
    ${
      lowest?.id === 'enterprise'
        ? markup`Enterprise is a contract: <a href="${BASE}/billing">see the plans</a>.`
        : markup`<a href="${BASE}/billing">Change plan</a>.`
    }
  </p>`;
}

export interface PageContext {
  principal: Principal;
  email: string;
  csrf: string;
}

export interface Flash {
  kind: 'error' | 'ok';
  text: string;
}

function head(title: string): Html {
  return markup`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · ${PRODUCT_NAME} dashboard</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${BASE}/assets/uPlot.min.css">
<link rel="stylesheet" href="${BASE}/assets/dashboard.css">
<script src="${BASE}/assets/uPlot.iife.min.js" defer></script>
<script src="${BASE}/assets/dashboard.js" defer></script>
</head>`;
}

export function flashBlock(flash: Flash | undefined): Html {
  if (flash === undefined) return markup``;
  return markup`<p
    class="flash flash-${flash.kind}"
    role="${flash.kind === 'error' ? 'alert' : 'status'}"
  >
    ${flash.text}
  </p>`;
}

/** A signed-in page: header with the account and sign-out, navigation, the content. */
export function page(
  ctx: PageContext,
  current: string,
  title: string,
  content: Html,
  flash?: Flash,
): string {
  const links = NAV.filter((n) => n.show === undefined || n.show(ctx.principal)).map(
    (n) =>
      markup`<li>
        <a href="${BASE}${n.path}" ${n.path === current ? markup` aria-current="page"` : ''}
          >${n.label}</a
        >
      </li>`,
  );
  return markup`${head(title)}
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
  <span class="brand">${PRODUCT_NAME}</span>
  <span class="who">${ctx.email} · <span class="plan">${ctx.principal.plan.name}</span></span>
  <form method="post" action="${BASE}/sign-out" class="inline">
    ${csrfField(ctx.csrf)}
    <button type="submit" class="link">Sign out</button>
  </form>
</header>
<nav aria-label="Dashboard"><ul>${links}</ul></nav>
<main id="main">
<h1>${title}</h1>
${flashBlock(flash)}
${content}
</main>
</body>
</html>`.value;
}

/** A page before signing in (sign in, sign up). */
export function publicPage(title: string, content: Html, flash?: Flash): string {
  return markup`${head(title)}
<body class="public">
<main id="main">
<p class="brand">${PRODUCT_NAME}</p>
<h1>${title}</h1>
${flashBlock(flash)}
${content}
</main>
</body>
</html>`.value;
}

/** A moment as `2026-11-25 14:05 UTC`, once: the same text for every viewer. */
export function time(at: number | string | null, empty = '—'): Html {
  if (at === null) return markup`${empty}`;
  const iso = new Date(at).toISOString();
  return markup`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`;
}

/** A calendar day as `2026-11-25` (a date column holds no time). */
export function day(at: string): Html {
  return markup`<time datetime="${at.slice(0, 10)}">${at.slice(0, 10)}</time>`;
}

const EUROS = new Intl.NumberFormat('en-GB', { style: 'currency', currency: 'EUR' });

/** Money as `€1,500.00` (`−€12.50` for a credit): integer cents in, one format everywhere. */
export function money(cents: number): string {
  const text = EUROS.format(Math.abs(cents) / 100);
  return cents < 0 ? `−${text}` : text;
}

/** A byte count as `1.2 MB`. */
export function bytes(n: number | null): string {
  if (n === null) return '—';
  if (n < 1000) return `${n} B`;
  const units = ['kB', 'MB', 'GB'];
  let value = n / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

// One formatter (toLocaleString builds one per call), and none for the small whole numbers
// that fill a 720-row table: formatting was most of such a page's time.
const NUMBER = new Intl.NumberFormat('en-GB');

export function number(n: number): string {
  return Number.isInteger(n) && n > -1000 && n < 1000 ? String(n) : NUMBER.format(n);
}

export function percent(rate: number | null): string {
  return rate === null ? '—' : `${(rate * 100).toFixed(rate < 0.1 ? 2 : 1)} %`;
}
