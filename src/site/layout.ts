import type { Brand } from './brand.js';
import { markup, type Html } from '../lib/html.js';

export interface PageInput {
  brand: Brand;
  /** The page's own title; the brand's name follows it in the window title. */
  title: string;
  description: string;
  /** The navigation entry to mark as current. */
  current?:
    | 'home'
    | 'reference'
    | 'quick-start'
    | 'guides'
    | 'methodology'
    | 'changelog'
    | 'errors'
    | 'status';
  body: Html;
}

const NAV: readonly { id: PageInput['current']; href: string; label: string }[] = [
  { id: 'reference', href: '/docs', label: 'API reference' },
  { id: 'quick-start', href: '/docs/quick-start', label: 'Quick start' },
  { id: 'guides', href: '/docs/guides', label: 'Docs' },
  { id: 'methodology', href: '/methodology', label: 'Methodology' },
  { id: 'changelog', href: '/docs/changelog', label: 'Changelog' },
  { id: 'status', href: '/status', label: 'Status' },
];

/** The site's icon: a bar chart in the pages' accent colour. */
export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#1d4ed8"/><rect x="3" y="8" width="2.5" height="5" fill="#fff"/><rect x="6.75" y="5" width="2.5" height="8" fill="#fff"/><rect x="10.5" y="3" width="2.5" height="10" fill="#fff"/></svg>';

/** The pages' security policy: no script, styles inline, nothing fetched from elsewhere. */
export const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:";

/** A whole HTML document: header with the brand and navigation, the body, a footer. */
export function page(input: PageInput): string {
  const { brand } = input;
  const nav = NAV.map(
    (item) =>
      markup`<a
        href="${item.href}"
        ${item.id !== undefined && item.id === input.current ? markup` aria-current="page"` : ''}
        >${item.label}</a
      >`,
  );
  return markup`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${input.title === brand.name ? brand.name : `${input.title} · ${brand.name}`}</title>
        <meta name="description" content="${input.description}" />
        <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
        <style>
          ${STYLE}
        </style>
      </head>
      <body>
        <header class="top">
          <a class="brand" href="/">${brand.name}</a>
          <nav aria-label="Main">${nav}<a class="cta" href="/dashboard/sign-up">Sign up</a></nav>
        </header>
        <main id="main">${input.body}</main>
        <footer>
          <p>
            ${brand.name} · <a href="/docs">API reference</a> ·
            <a href="/docs/guides">Documentation</a> · <a href="/errors">Error codes</a> ·
            <a href="/methodology">Methodology</a> · <a href="/data/releases">Data releases</a> ·
            <a href="/status">Status</a> ·
            <a href="/dashboard">Dashboard</a>
          </p>
          ${
            brand.licensed
              ? ''
              : markup`<p>
                  <a href="/legal/terms">Terms</a> · <a href="/legal/privacy">Privacy</a> ·
                  <a href="/legal/dpa">Data processing agreement</a> ·
                  <a href="/legal/imprint">Imprint</a>
                </p>`
          }
        </footer>
      </body>
    </html>`.value;
}

const STYLE = `
:root{--ink:#1b2430;--muted:#4a5566;--line:#d8dee7;--accent:#0b5cad;--soft:#f3f6fa;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);line-height:1.55}
body{margin:0;background:#fff}
a{color:var(--accent)}
.top{display:flex;flex-wrap:wrap;gap:.5rem 2rem;align-items:center;justify-content:space-between;padding:.8rem 2rem;border-bottom:1px solid var(--line)}
.brand{font-weight:700;font-size:1.1rem;color:var(--ink);text-decoration:none}
.top nav{display:flex;flex-wrap:wrap;gap:1.2rem;align-items:center}
.top nav a{text-decoration:none;color:var(--muted)}
.top nav a[aria-current=page]{color:var(--ink);font-weight:600;border-bottom:2px solid var(--accent)}
.top nav a.cta{background:var(--accent);color:#fff;padding:.35rem .9rem;border-radius:6px}
main{max-width:62rem;margin:0 auto;padding:1.5rem 2rem 3rem}
h1{font-size:2rem;line-height:1.2;margin:1rem 0 .5rem}
h2{margin-top:2.2rem;border-bottom:1px solid var(--line);padding-bottom:.3rem}
.lead{font-size:1.15rem;color:var(--muted);max-width:48rem}
table{border-collapse:collapse;margin:1rem 0;font-size:.92rem;display:block;overflow-x:auto}
th,td{border:1px solid var(--line);padding:.35rem .6rem;text-align:left;vertical-align:top}
th{background:var(--soft)}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.9em;background:var(--soft);padding:.05rem .25rem;border-radius:3px}
img{max-width:100%;height:auto}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#0f1722;color:#e8edf3;padding:1rem;border-radius:6px;overflow-x:auto;font-size:.85rem;line-height:1.45}
pre code{background:none;padding:0;color:inherit}
.plans{display:grid;grid-template-columns:repeat(auto-fit,minmax(13rem,1fr));gap:1rem;margin:1rem 0}
.plan{border:1px solid var(--line);border-radius:8px;padding:1rem 1.2rem}
.plan h3{margin:.1rem 0}
.plan .price{font-size:1.5rem;font-weight:700;margin:.3rem 0}
.plan ul{padding-left:1.1rem;margin:.5rem 0 0}
.plan .contact{font-size:.9rem;color:var(--muted);margin:.6rem 0 0}
.plan a.sales{display:inline-block;margin-top:.4rem;background:var(--accent);color:#fff;padding:.35rem .9rem;border-radius:6px;text-decoration:none}
.links{display:flex;flex-wrap:wrap;gap:.8rem;margin:1.2rem 0}
.links a{border:1px solid var(--accent);border-radius:6px;padding:.45rem 1rem;text-decoration:none}
.links a.primary{background:var(--accent);color:#fff}
figure{margin:1.5rem 0}
figcaption{color:var(--muted);font-size:.9rem}
svg text{font-family:inherit}
.note{color:var(--muted);font-size:.92rem}
footer{border-top:1px solid var(--line);padding:1rem 2rem;color:var(--muted);font-size:.9rem}
footer p{margin:.3rem 0}
.template{border-left:4px solid #b45309;background:#fff7ed;padding:.6rem 1rem}
dl.facts{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:.3rem 1rem}
dl.facts dt{font-weight:600}
dl.facts dd{margin:0;overflow-wrap:anywhere}
.summary{padding:1rem;border-radius:.5rem;background:#e6f4ea}.summary.degraded,.summary.maintenance{background:#fff4e5}.summary.outage{background:#fdecea}
ul.components{list-style:none;padding:0}.component{display:flex;justify-content:space-between;gap:1rem;padding:.5rem 0;border-bottom:1px solid var(--line)}
.state.operational{color:#0a6b2b}.state.degraded,.state.maintenance{color:#8a4b00}.state.outage{color:#a50e0e}
ol.bars{display:flex;gap:2px;list-style:none;padding:0;height:2.5rem}.bar{flex:1;border-radius:2px}
.bar.up{background:#2e9e50}.bar.minor{background:#e3a21a}.bar.major{background:#c5221f}.bar.none{background:#ccc}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
.incident.open{border-left:4px solid #c5221f;padding-left:.75rem}
`;
