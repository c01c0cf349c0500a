import type { Principal } from '../auth/index.js';
import { markup, type Html } from './html.js';

export const BASE = '/dashboard';

/** The navigation; later pages (OAuth clients, exports, custom endpoints, SLA) add an entry here. */
export const NAV: readonly { path: string; label: string; show?: (p: Principal) => boolean }[] = [
  { path: '', label: 'Overview' },
  { path: '/usage', label: 'Usage' },
  { path: '/keys', label: 'API keys' },
  { path: '/webhooks', label: 'Webhooks', show: (p) => p.plan.webhooks },
  { path: '/sla', label: 'Uptime SLA', show: (p) => p.plan.slaPercent !== null },
  { path: '/billing', label: 'Billing' },
  { path: '/account', label: 'Account' },
];

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
<title>${title} · Salary API dashboard</title>
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
  <span class="brand">Salary API</span>
  <span class="who">${ctx.email} · <span class="plan">${ctx.principal.plan.name}</span></span>
  <form method="post" action="${BASE}/sign-out" class="inline">
    <input type="hidden" name="_csrf" value="${ctx.csrf}">
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
<p class="brand">Salary API</p>
<h1>${title}</h1>
${flashBlock(flash)}
${content}
</main>
</body>
</html>`.value;
}

/** `<time>` in UTC; the script adds the viewer's local time beside it. */
export function time(at: number | string | null, empty = '—'): Html {
  if (at === null) return markup`${empty}`;
  const iso = new Date(at).toISOString();
  return markup`<time datetime="${iso}" data-local>${iso.slice(0, 16).replace('T', ' ')} UTC</time>`;
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
