import { PRODUCT_NAME } from '../lib/product-name.js';
/**
 * The messages the service sends: one template per notice kind, rendered as plain text and
 * simple HTML in English. Templates read only the named fields of a notice's data, so nothing
 * else a caller put there (let alone a secret) can reach a message.
 */

/** Who a notice goes to and whether the account's opt-out silences it. */
export type NoticeCategory = 'account' | 'billing' | 'security' | 'technical' | 'support';

export interface Template {
  category: NoticeCategory;
  subject(d: NoticeData): string;
  /** Paragraphs of the body, after the greeting; `link` makes a path an absolute URL. */
  body(d: NoticeData, link: Link): string[];
}

/** A path of this server (`/dashboard/billing`) as the absolute URL a mail links to. */
type Link = (path: string) => string;

type NoticeData = Readonly<Record<string, unknown>>;

const str = (d: NoticeData, key: string): string => {
  const v = d[key];
  return typeof v === 'string' || typeof v === 'number' ? String(v) : '';
};
const money = (d: NoticeData, key: string): string => {
  const v = d[key];
  if (typeof v !== 'number') return '';
  const currency = str(d, 'currency') || 'EUR';
  return `${(v / 100).toFixed(2)} ${currency}`;
};
const day = (d: NoticeData, key: string): string => str(d, key).slice(0, 10);
/** An id as it may stand in a path (anything else is dropped rather than linked). */
const idOf = (d: NoticeData, key: string): string => {
  const v = str(d, key);
  return /^[A-Za-z0-9_-]{1,64}$/.test(v) ? v : '';
};
/** A mailed link's token as it may stand in a URL (anything else is dropped, not linked). */
const tokenOf = (d: NoticeData): string => {
  const v = str(d, 'token');
  return /^[A-Za-z0-9_-]{1,64}\.[A-Za-z0-9_-]{43}$/.test(v) ? v : '';
};
const list = (d: NoticeData, key: string): string[] => {
  const v = d[key];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
};

export const TEMPLATES = {
  'account.welcome': {
    category: 'account',
    subject: () => 'Welcome to the salary data API',
    body: (d, link) =>
      str(d, 'created_by') === 'operator'
        ? [
            `We set up your account on the ${str(d, 'plan_name') || 'Free'} plan. Sign in to the dashboard with this e-mail address and the password we gave you, and choose a password of your own under Account: ${link('/dashboard/account')}`,
            str(d, 'plan_name') === '' || str(d, 'plan_name') === 'Free'
              ? `Your plan, invoices and billing details are in the dashboard: ${link('/dashboard/billing')}`
              : `Your first API key was handed to you with the account. Further keys, usage, invoices and billing details are in the dashboard: ${link('/dashboard')}`,
            `Getting started and the API reference: ${link('/docs')}`,
            'API keys are shown once, when they are created; we never send them by e-mail.',
          ]
        : [
            `Your account is ready, on the Free plan. Sign in to the dashboard to see your usage, and choose a paid plan there when you need keys, more requests or more formats: ${link('/dashboard/billing')}`,
            `Getting started and the API reference: ${link('/docs')}`,
            'API keys are shown once, when you create them; we never send them by e-mail.',
          ],
  },
  'subscription.confirmed': {
    category: 'billing',
    subject: (d) => `Your ${str(d, 'plan_name')} subscription is active`,
    body: (d, link) => [
      `Thank you for subscribing to the ${str(d, 'plan_name')} plan. Your subscription is active now.`,
      `The first invoice covers the period up to ${day(d, 'period_end')}. Your invoices, and the company details they are made out to, are in the dashboard: ${link('/dashboard/billing')}`,
      `Your API keys are listed in the dashboard (${link('/dashboard/keys')}); a new key is shown only once, when it is created, and is never sent by e-mail.`,
    ],
  },
  'invoice.issued': {
    category: 'billing',
    subject: (d) => `Invoice ${str(d, 'number')} issued`,
    body: (d, link) => {
      const id = idOf(d, 'invoice_id');
      return [
        `Invoice ${str(d, 'number')} of ${money(d, 'total_cents')} was issued; ${money(d, 'amount_due_cents')} is due by ${day(d, 'due_at')}.`,
        ...(str(d, 'mandate_reference') === ''
          ? []
          : [
              `${money(d, 'amount_due_cents')} will be collected by SEPA Direct Debit on ${day(d, 'collection_date')} under mandate ${str(d, 'mandate_reference')}, creditor identifier ${str(d, 'creditor_id')}.`,
            ]),
        id === ''
          ? `Your invoices are in the dashboard: ${link('/dashboard/billing')}`
          : `Download it as a PDF: ${link(`/dashboard/billing/invoices/${id}/pdf`)} (after signing in), or from the API with GET ${link(`/api/v1/invoices/${id}`)} and the header Accept: application/pdf. All invoices: ${link('/dashboard/billing')}`,
      ];
    },
  },
  'invoice.overdue': {
    category: 'billing',
    subject: () => 'Payment overdue',
    body: (d, link) => [
      `Payment of invoice ${list(d, 'invoice_numbers').join(', ')} is overdue.`,
      `Please pay by ${day(d, 'grace_ends_at')}; after that date the account moves to the Free plan and keys beyond the Free plan's limit are revoked.`,
      `Your invoices: ${link('/dashboard/billing')}`,
    ],
  },
  'subscription.payment_failed': {
    category: 'billing',
    subject: () => 'Your account moved to the Free plan',
    body: (d, link) => [
      `The overdue invoice was not paid within the grace period, so the account moved from the ${str(d, 'from_plan')} plan to the Free plan.`,
      `Subscribe again at any time in the dashboard once the overdue invoice is settled: ${link('/dashboard/billing')}`,
    ],
  },
  'billing_details.required': {
    category: 'billing',
    subject: () => 'Billing details needed to renew your subscription',
    body: (d, link) => [
      `Your ${str(d, 'plan_name')} subscription is due for renewal, and no invoice can be issued: the account has no billing details (the name, address and country invoices are made out to).`,
      `Please add them by ${day(d, 'grace_ends_at')} on the Billing page: ${link('/dashboard/billing#billing-details')}. The renewal is then invoiced and the plan continues; until that date it stays as it is. Without billing details the account moves to the Free plan on that date and keys beyond the Free plan's limit are revoked.`,
    ],
  },
  'subscription.ended_without_billing_details': {
    category: 'billing',
    subject: () => 'Your account moved to the Free plan',
    body: (d, link) => [
      `No billing details were given within the grace period, so the renewal could not be invoiced and the account moved from the ${str(d, 'from_plan')} plan to the Free plan.`,
      `Add your billing details and subscribe again at any time in the dashboard: ${link('/dashboard/billing')}`,
    ],
  },
  'plan.change_scheduled': {
    category: 'billing',
    subject: (d) => `Plan change to ${str(d, 'to_plan')} scheduled`,
    body: (d, link) => [
      `Your plan changes from ${str(d, 'from_plan')} to ${str(d, 'to_plan')} on ${day(d, 'effective_at')}, at the end of the current period.`,
      `Until then the current plan applies. You can undo the change in the dashboard before that date: ${link('/dashboard/billing')}`,
    ],
  },
  'plan.changed': {
    category: 'billing',
    subject: (d) => `Your plan is now ${str(d, 'to_plan')}`,
    body: (d, link) => [
      `Your plan changed from ${str(d, 'from_plan')} to ${str(d, 'to_plan')}.`,
      `Your plan and invoices: ${link('/dashboard/billing')}`,
    ],
  },
  'keys.revoked_by_downgrade': {
    category: 'security',
    subject: () => 'API keys revoked after a plan change',
    body: (d, link) => [
      `The ${str(d, 'to_plan')} plan allows fewer API keys, so these keys were revoked and no longer work: ${list(d, 'key_ids').join(', ')}.`,
      `The most recently created keys were kept: ${link('/dashboard/keys')}`,
    ],
  },
  'keys.rotation_grace_ending': {
    category: 'technical',
    subject: (d) => `API key "${str(d, 'key_name')}" stops working soon`,
    body: (d, link) => [
      `The key "${str(d, 'key_name')}" (${str(d, 'key_prefix')}…) was replaced by a rotation and stops working at ${str(d, 'expires_at')}.`,
      `Move every client to the new key before then. Your keys: ${link('/dashboard/keys')}`,
    ],
  },
  'webhooks.endpoint_disabled': {
    category: 'technical',
    subject: () => 'Webhook endpoint disabled',
    body: (d, link) => [
      `The webhook endpoint ${str(d, 'url')} (${str(d, 'webhook_id')}) was disabled: ${str(d, 'reason')}.`,
      `Fix the receiver, then enable the endpoint again in the dashboard (${link('/dashboard/webhooks')}) or with PATCH ${link(`/api/v1/webhooks/${idOf(d, 'webhook_id')}`)}.`,
    ],
  },
  'data.updated': {
    category: 'technical',
    subject: (d) => `Salary data release ${str(d, 'release')} is live`,
    body: (d, link) => {
      const release = str(d, 'release');
      const previous = str(d, 'previous_release');
      const changes = d.changes as
        { beyond?: Record<string, unknown>; by_country?: unknown[] } | null | undefined;
      const beyond = (key: string): string => {
        const v = changes?.beyond?.[key];
        return typeof v === 'number' ? String(v) : '0';
      };
      const countries = (Array.isArray(changes?.by_country) ? changes.by_country : [])
        .filter(
          (c): c is { country: string; beyond_5: number } =>
            typeof c === 'object' &&
            c !== null &&
            typeof (c as { country?: unknown }).country === 'string' &&
            /^[A-Z]{2}$/.test((c as { country: string }).country) &&
            typeof (c as { beyond_5?: unknown }).beyond_5 === 'number',
        )
        .filter((c) => c.beyond_5 > 0)
        .sort((a, b) => b.beyond_5 - a.beyond_5)
        .slice(0, 5);
      const versionPattern = /^[0-9A-Za-z.-]{1,40}$/;
      if (!versionPattern.test(release)) return [];
      return [
        `Data release ${release} is now the one every salary request answers from by default.`,
        ...(previous === '' || !versionPattern.test(previous)
          ? []
          : [
              `Compared with ${previous}, the median of ${beyond('1')} cells moved by more than 1 %, ${beyond('5')} by more than 5 % and ${beyond('10')} by more than 10 %.` +
                (countries.length === 0
                  ? ''
                  : ` Most moved (cells beyond 5 %): ${countries.map((c) => `${c.country} ${c.beyond_5}`).join(', ')}.`),
              `Every changed cell with its old and new figures and the reason: GET ${link(`/api/v1/releases/${release}/changes?from=${previous}`)}. To keep answers on ${previous} while you review, add release=${previous} to your requests.`,
            ]),
        `What changed in each release, in words: ${link('/data/releases')}`,
      ];
    },
  },
  'export.failed': {
    category: 'technical',
    subject: () => 'A data export failed',
    body: (d, link) => [
      `The export ${str(d, 'export_id')} failed: ${str(d, 'reason')}.`,
      `You can start it again; the failed run was not charged. Its runs: GET ${link(`/api/v1/exports/${idOf(d, 'export_id')}/runs`)}`,
    ],
  },
  'sla.credit_issued': {
    category: 'billing',
    subject: () => 'Service credit issued',
    body: (d, link) => [
      `Availability in ${str(d, 'month')} was ${str(d, 'availability')}, below the ${str(d, 'target')} in your plan, so a credit of ${money(d, 'amount_cents')} was added to your balance.`,
      `It is taken off your next invoice. Availability by month: ${link('/dashboard/sla')}; your balance: ${link('/dashboard/billing')}`,
    ],
  },
  'email.verify': {
    category: 'account',
    subject: () => 'Confirm your e-mail address',
    body: (d, link) => {
      const token = tokenOf(d);
      return [
        'Please confirm that this e-mail address belongs to your account. Paid plans and API keys are available once it is confirmed.',
        token === ''
          ? `Ask for a new link on the Account page of the dashboard: ${link('/dashboard/account')}`
          : `Confirm it here (the link works once, until ${str(d, 'expires_at').slice(0, 16).replace('T', ' ')} UTC): ${link(`/dashboard/verify-email?token=${token}`)}`,
        'If you did not sign up, ignore this message: nothing happens without the link.',
      ];
    },
  },
  'password.reset': {
    category: 'account',
    subject: () => 'Reset your password',
    body: (d, link) => {
      const token = tokenOf(d);
      return [
        'Someone asked to reset the password of your account. If it was you, choose a new password here:',
        token === ''
          ? `Ask for a new link: ${link('/dashboard/forgot-password')}`
          : `${link(`/dashboard/reset-password?token=${token}`)} (works once, until ${str(d, 'expires_at').slice(0, 16).replace('T', ' ')} UTC)`,
        'If it was not you, ignore this message: your password stays as it is.',
      ];
    },
  },
  'password.changed': {
    category: 'security',
    subject: () => 'Your password was changed',
    body: (d, link) => [
      `The password of your account was changed at ${str(d, 'at')} from the address ${str(d, 'ip')}. Every other session of the account was signed out.`,
      `If you did not do this, contact support at once and revoke your API keys: ${link('/dashboard/keys')}`,
    ],
  },
  'totp.enabled': {
    category: 'security',
    subject: () => 'Two-factor sign-in was turned on',
    body: (d, link) => [
      `Two-factor sign-in was turned on for your account at ${str(d, 'at')} from the address ${str(d, 'ip')}. Signing in to the dashboard now asks for a code from your authenticator app after the password.`,
      `If you did not do this, change your password and contact support at once: ${link('/dashboard/account')}`,
    ],
  },
  'totp.disabled': {
    category: 'security',
    subject: () => 'Two-factor sign-in was turned off',
    body: (d, link) => [
      `Two-factor sign-in was turned off for your account at ${str(d, 'at')} from the address ${str(d, 'ip')}. Signing in now asks for the password only.`,
      `If you did not do this, change your password and turn two-factor sign-in on again: ${link('/dashboard/account')}`,
    ],
  },
  'totp.reset': {
    category: 'security',
    subject: () => 'Two-factor sign-in was reset by support',
    body: (d, link) => [
      `At your request, support turned two-factor sign-in off for your account at ${str(d, 'at')}. Signing in now asks for the password only.`,
      `Set it up again with your new device: ${link('/dashboard/account')}. If you did not ask for this, contact support at once.`,
    ],
  },
  'totp.recovery_code_used': {
    category: 'security',
    subject: () => 'A recovery code was used to sign in',
    body: (d, link) => [
      `A recovery code of your account was used at ${str(d, 'at')} from the address ${str(d, 'ip')}. ${str(d, 'left')} unused recovery codes are left.`,
      `If this was not you, change your password at once: ${link('/dashboard/account')}`,
    ],
  },
  'sessions.new_address': {
    category: 'security',
    subject: () => 'New sign-in to your account',
    body: (d, link) => [
      `Your account was signed in to from an address not seen before (${str(d, 'ip')}) at ${str(d, 'at')}.`,
      `If this was not you, change your password and revoke your sessions and keys: ${link('/dashboard/account')}`,
    ],
  },
  'support.request': {
    category: 'support',
    subject: (d) =>
      `[${str(d, 'priority')} ${str(d, 'plan_name')}] ${str(d, 'subject')} (${str(d, 'account_id')})`,
    body: (d) => [
      `Support request ${str(d, 'request_id')} from account ${str(d, 'account_id')} (${str(d, 'account_email')}), plan ${str(d, 'plan_name')}, severity ${str(d, 'severity')}, response target ${str(d, 'response_target')}.`,
      `Error rate of its requests in the last 24 hours: ${str(d, 'error_rate')}.`,
      str(d, 'message'),
    ],
  },
  'support.confirmation': {
    category: 'support',
    subject: (d) => `We received your support request: ${str(d, 'subject')}`,
    body: (d) => [
      `We received your request ${str(d, 'request_id')} and answer within ${str(d, 'response_target')} (${str(d, 'plan_name')} plan).`,
      `Your message:\n${str(d, 'message')}`,
    ],
  },
} satisfies Record<string, Template>;

export type NoticeKind = keyof typeof TEMPLATES;
export const NOTICE_KINDS = Object.keys(TEMPLATES) as NoticeKind[];

export function isNoticeKind(kind: string): kind is NoticeKind {
  return Object.hasOwn(TEMPLATES, kind);
}

export interface RenderedMessage {
  subject: string;
  text: string;
  html: string;
}

const escapeHtml = (s: string): string =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

/** Links in the HTML part: each absolute http(s) URL of the text (escaped already). */
const linkify = (escaped: string): string =>
  escaped.replace(/https?:\/\/[^\s<>"']+[^\s<>"'.,;:)]/g, (url) => `<a href="${url}">${url}</a>`);

/**
 * The message of a notice; `name` greets the account (its name, or its e-mail address).
 * `baseUrl` is the server's public URL, which the links in the message start with.
 */
export function renderNotice(
  kind: NoticeKind,
  data: NoticeData,
  name: string | null,
  baseUrl: string,
): RenderedMessage {
  const t: Template = TEMPLATES[kind];
  const base = baseUrl.replace(/\/$/, '');
  const paragraphs = [
    ...(name === null ? [] : [`Hello ${name},`]),
    ...t.body(data, (path) => `${base}${path}`),
    `— ${PRODUCT_NAME} · ${base}/dashboard`,
  ];
  const text = paragraphs.join('\n\n') + '\n';
  const html =
    '<!doctype html><html><body>' +
    paragraphs.map((p) => `<p>${linkify(escapeHtml(p)).replace(/\n/g, '<br>')}</p>`).join('') +
    '</body></html>';
  return { subject: t.subject(data).replace(/[\r\n]+/g, ' '), text, html };
}
