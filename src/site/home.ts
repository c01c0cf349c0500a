import { COUNTRIES, JOBS, LEVELS } from '../catalog/index.js';
import type { Plan, PlanId } from '../plans/index.js';
import type { ReleaseRow } from '../releases/index.js';
import type { Brand } from './brand.js';
import { markup } from '../lib/html.js';
import { page } from './layout.js';
import { planFacts, priceText } from './plans-view.js';
import { SUPPORT_BY_PLAN } from '../support/index.js';

/** The lookup the front page shows, answered live from the loaded release. */
export const EXAMPLE_QUERY = 'country=DE&job=software-engineer&level=mid';

export interface HomeInput {
  brand: Brand;
  origin: string;
  plans: readonly Plan[];
  release: ReleaseRow | undefined;
  /** The example lookup's JSON answer; undefined while no release is loaded. */
  example: unknown;
  contacts: PlanContacts;
}

/** Whom a plan's buyer writes to: the operator's settings. */
export interface PlanContacts {
  /** SUPPORT_EMAIL: e-mail support of the paid plans. */
  supportEmail: string | undefined;
  /** SALES_EMAIL: Enterprise enquiries (SUPPORT_EMAIL stands in when it is not set). */
  salesEmail: string | undefined;
  /** COMMUNITY_URL: where Free is supported. */
  communityUrl: string;
}

/** The bare address of `Name <address>` or of an address. */
const addressOf = (email: string): string => /<([^<>]+)>\s*$/.exec(email)?.[1] ?? email;

/** A plan's support line and, for Enterprise, the way to its sales. */
function planContact(plan: Plan, contacts: PlanContacts) {
  const support = SUPPORT_BY_PLAN[plan.id];
  const sales = contacts.salesEmail ?? contacts.supportEmail;
  if (plan.id === 'free')
    return markup`<p class="contact">Support: <a href="${contacts.communityUrl}">community</a></p>`;
  const mail =
    contacts.supportEmail === undefined
      ? markup`${support.channel}`
      : markup`<a href="mailto:${addressOf(contacts.supportEmail)}"
          >${addressOf(contacts.supportEmail)}</a
        >`;
  return markup`<p class="contact">
      Support: ${mail}, answered within
      ${support.responseTarget}${
        plan.id === 'enterprise' ? ', with a dedicated account manager' : ''
      }
    </p>
    ${
      plan.id === 'enterprise' && sales !== undefined
        ? markup`<p>
            <a class="sales" href="mailto:${addressOf(sales)}?subject=Enterprise">Contact sales</a>
          </p>`
        : ''
    }`;
}

const SHOWN_PUBLISHERS = 12;

/**
 * The publishers' names as a reader would list them: each source's publisher up to its first
 * qualifier (a bracket, comma, semicolon or colon), once each, the most cited first; at most a
 * dozen, then how many more.
 */
export function publisherNames(sources: readonly { publisher: string }[]): string[] {
  const counts = new Map<string, number>();
  for (const s of sources) {
    const name = s.publisher
      .replace(/^\(\d+\)\s*/, '')
      .split(/[(,;:—]| - /)[0]!
      .trim();
    if (name === '' || /^derived/i.test(name)) continue;
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  const names = [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([name]) => name);
  if (names.length <= SHOWN_PUBLISHERS) return names;
  return [...names.slice(0, SHOWN_PUBLISHERS), `and ${names.length - SHOWN_PUBLISHERS} more`];
}

export function homePage(input: HomeInput): string {
  const { brand, release } = input;
  const years = release === undefined ? '' : `${release.firstYear}–${release.currentYear}`;
  const publishers = publisherNames(release?.header.sources ?? []);
  const call = `curl "${input.origin}/api/v1/salary?${EXAMPLE_QUERY}"`;
  const body = markup`
    <h1>${brand.name}</h1>
    <p class="lead">
      Gross annual pay for ${COUNTRIES.length} EU member states and ${JOBS.length} job categories at
      ${LEVELS.length} seniority levels, with percentiles, for every year from
      ${years || 'the loaded data release'}. Every figure is modelled from published statistics and
      pay scales, each source named, and every answer says how.
    </p>
    <p class="links">
      <a class="primary" href="/dashboard/sign-up">Sign up</a>
      <a href="/docs/quick-start">Quick start</a>
      <a href="/docs">API reference</a>
      <a href="/methodology">Methodology</a>
      <a href="/status">Service status</a>
    </p>

    <h2>What the data is</h2>
    <dl class="facts">
      <dt>Figures</dt>
      <dd>
        Gross annual pay, full-time equivalent, in euros (and the local currency): 25th percentile,
        median and 75th percentile, more on request.
      </dd>
      <dt>Coverage</dt>
      <dd>
        ${COUNTRIES.length} countries × ${JOBS.length} job categories (ISCO-08) × ${LEVELS.length}
        levels (${LEVELS.join(', ')})${years === '' ? '' : `, ${years}`}.
      </dd>
      <dt>Sources</dt>
      <dd>
        ${publishers.length > 0 ? publishers.join(', ') : 'Eurostat, national statistical offices and the ECB'}:
        statistical tables, statutory minimum wages and collective pay scales, some reached through
        press reports and republications; each source is named with its publisher.
        <a href="/methodology">How the figures are made</a>;
        <a href="/data/releases">the releases and what changed in each</a>.
      </dd>
      <dt>Honesty</dt>
      <dd>
        No figure is survey microdata. Each record carries its <code>basis</code> (published,
        interpolated or projected) and a <code>confidence</code>.
      </dd>
      ${
        release === undefined
          ? ''
          : markup`<dt>Data release</dt>
              <dd>
                ${release.version}, current year ${release.currentYear}, last published year
                ${release.lastPublishedYear}.
              </dd>`
      }
    </dl>

    <h2>Try it</h2>
    <p>The Free plan needs no key. This is the live answer of the call below:</p>
    <pre><code>${call}</code></pre>
    ${
      input.example === undefined
        ? markup`<p class="note">The example answer appears here once a data release is loaded.</p>`
        : markup`<pre
            aria-label="Example answer"
            tabindex="0"
          ><code>${JSON.stringify(input.example, null, 2)}</code></pre>`
    }

    <h2>Plans</h2>
    <div class="plans">
      ${input.plans.map(
        (plan) =>
          markup`<section class="plan" aria-labelledby="plan-${plan.id}">
            <h3 id="plan-${plan.id}">${plan.name}</h3>
            <p class="price">${priceText(plan)}</p>
            <ul>
              ${planFacts(plan).map((fact) => markup`<li>${fact}</li>`)}
            </ul>
            ${brand.licensed ? '' : planContact(plan, input.contacts)}
          </section>`,
      )}
    </div>
    <p>
      Paid plans start at once from the <a href="/dashboard/sign-up">dashboard</a>; upgrades take
      effect immediately and are billed pro rata. Enterprise terms are set by
      contract${
        (input.contacts.salesEmail ?? input.contacts.supportEmail)
          ? markup`:
              <a
                href="mailto:${addressOf((input.contacts.salesEmail ?? input.contacts.supportEmail)!)}?subject=Enterprise"
                >contact sales</a
              >`
          : ''
      }.
    </p>
  `;
  return page({
    brand,
    title: brand.name,
    description: `${brand.name}: gross pay percentiles for ${COUNTRIES.length} EU countries and ${JOBS.length} job categories.`,
    current: 'home',
    body,
  });
}

export function orderedPlans(plans: Readonly<Record<PlanId, Plan>>): Plan[] {
  return Object.values(plans).sort((a, b) => a.rank - b.rank);
}
