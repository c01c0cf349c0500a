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
  /** Paragraphs of the body, after the greeting. */
  body(d: NoticeData): string[];
}

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
const list = (d: NoticeData, key: string): string[] => {
  const v = d[key];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
};

export const TEMPLATES = {
  'account.welcome': {
    category: 'account',
    subject: () => 'Welcome to the salary data API',
    body: () => [
      'Your account is ready. Sign in to the dashboard or the API to create API keys and choose a plan.',
      'API keys are shown once, when you create them; we never send them by e-mail.',
    ],
  },
  'subscription.confirmed': {
    category: 'billing',
    subject: (d) => `Your ${str(d, 'plan_name')} subscription is active`,
    body: (d) => [
      `Thank you for subscribing to the ${str(d, 'plan_name')} plan. Your subscription is active now.`,
      `The first invoice covers the period up to ${day(d, 'period_end')}.`,
      'Your API keys are listed in the dashboard; a new key is shown only once, when it is created, and is never sent by e-mail.',
    ],
  },
  'invoice.issued': {
    category: 'billing',
    subject: (d) => `Invoice ${str(d, 'number')} issued`,
    body: (d) => [
      `Invoice ${str(d, 'number')} of ${money(d, 'total_cents')} was issued; ${money(d, 'amount_due_cents')} is due by ${day(d, 'due_at')}.`,
      'You can read and download it in the dashboard or at GET /api/v1/billing/invoices.',
    ],
  },
  'invoice.overdue': {
    category: 'billing',
    subject: () => 'Payment overdue',
    body: (d) => [
      `Payment of invoice ${list(d, 'invoice_numbers').join(', ')} is overdue.`,
      `Please pay by ${day(d, 'grace_ends_at')}; after that date the account moves to the Free plan and keys beyond the Free plan's limit are revoked.`,
    ],
  },
  'subscription.payment_failed': {
    category: 'billing',
    subject: () => 'Your account moved to the Free plan',
    body: (d) => [
      `The overdue invoice was not paid within the grace period, so the account moved from the ${str(d, 'from_plan')} plan to the Free plan.`,
      'Subscribe again at any time from the dashboard once the overdue invoice is settled.',
    ],
  },
  'plan.change_scheduled': {
    category: 'billing',
    subject: (d) => `Plan change to ${str(d, 'to_plan')} scheduled`,
    body: (d) => [
      `Your plan changes from ${str(d, 'from_plan')} to ${str(d, 'to_plan')} on ${day(d, 'effective_at')}, at the end of the current period.`,
      'Until then the current plan applies. You can undo the change in the dashboard before that date.',
    ],
  },
  'plan.changed': {
    category: 'billing',
    subject: (d) => `Your plan is now ${str(d, 'to_plan')}`,
    body: (d) => [`Your plan changed from ${str(d, 'from_plan')} to ${str(d, 'to_plan')}.`],
  },
  'keys.revoked_by_downgrade': {
    category: 'security',
    subject: () => 'API keys revoked after a plan change',
    body: (d) => [
      `The ${str(d, 'to_plan')} plan allows fewer API keys, so these keys were revoked and no longer work: ${list(d, 'key_ids').join(', ')}.`,
      'The most recently created keys were kept.',
    ],
  },
  'keys.rotation_grace_ending': {
    category: 'technical',
    subject: (d) => `API key "${str(d, 'key_name')}" stops working soon`,
    body: (d) => [
      `The key "${str(d, 'key_name')}" (${str(d, 'key_prefix')}…) was replaced by a rotation and stops working at ${str(d, 'expires_at')}.`,
      'Move every client to the new key before then.',
    ],
  },
  'webhooks.endpoint_disabled': {
    category: 'technical',
    subject: () => 'Webhook endpoint disabled',
    body: (d) => [
      `The webhook endpoint ${str(d, 'url')} (${str(d, 'webhook_id')}) was disabled: ${str(d, 'reason')}.`,
      'Fix the receiver, then enable the endpoint again with PATCH /api/v1/webhooks/{id}.',
    ],
  },
  'export.failed': {
    category: 'technical',
    subject: () => 'A data export failed',
    body: (d) => [
      `The export ${str(d, 'export_id')} failed: ${str(d, 'reason')}.`,
      'You can start it again; the failed run was not charged.',
    ],
  },
  'sla.credit_issued': {
    category: 'billing',
    subject: () => 'Service credit issued',
    body: (d) => [
      `Availability in ${str(d, 'month')} was ${str(d, 'availability')}, below the ${str(d, 'target')} in your plan, so a credit of ${money(d, 'amount_cents')} was added to your balance.`,
      'It is taken off your next invoice.',
    ],
  },
  'password.changed': {
    category: 'security',
    subject: () => 'Your password was changed',
    body: (d) => [
      `The password of your account was changed at ${str(d, 'at')} from the address ${str(d, 'ip')}. Every other session of the account was signed out.`,
      'If you did not do this, contact support at once and revoke your API keys.',
    ],
  },
  'sessions.new_address': {
    category: 'security',
    subject: () => 'New sign-in to your account',
    body: (d) => [
      `Your account was signed in to from an address not seen before (${str(d, 'ip')}) at ${str(d, 'at')}.`,
      'If this was not you, change your password and revoke your sessions and keys.',
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

/** The message of a notice; `name` greets the account (its name, or its e-mail address). */
export function renderNotice(
  kind: NoticeKind,
  data: NoticeData,
  name: string | null,
): RenderedMessage {
  const t: Template = TEMPLATES[kind];
  const paragraphs = [
    ...(name === null ? [] : [`Hello ${name},`]),
    ...t.body(data),
    '— Salary data API',
  ];
  const text = paragraphs.join('\n\n') + '\n';
  const html =
    '<!doctype html><html><body>' +
    paragraphs.map((p) => `<p>${escapeHtml(p).replace(/\n/g, '<br>')}</p>`).join('') +
    '</body></html>';
  return { subject: t.subject(data).replace(/[\r\n]+/g, ' '), text, html };
}
