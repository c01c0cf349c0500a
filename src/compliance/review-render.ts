import { stringify } from 'csv-stringify/sync';
import { safeCell } from '../lib/csv-cell.js';
import type { AccessReview } from './access-review.js';
import type { ReportDocument } from './report-pdf.js';

const list = (values: readonly string[] | null, none: string): string =>
  values === null ? none : values.length === 0 ? '(none)' : values.join(' ');

export const CSV_COLUMNS = [
  'type',
  'id',
  'name',
  'status',
  'scopes',
  'allowlist',
  'created_at',
  'age_days',
  'last_used_at',
  'rotated_at',
  'rotation',
  'detail',
] as const;

/**
 * One row per credential, session and destination, then one row for the audit log's chain:
 * the table an auditor filters in a spreadsheet. RFC 4180, CRLF.
 */
export function reviewCsv(review: AccessReview): string {
  const rows: (string | number | null)[][] = [];
  for (const k of review.api_keys) {
    rows.push([
      'api_key',
      k.id,
      k.name,
      k.status,
      list(k.scopes, '(all scopes)'),
      list(k.allowlist, ''),
      k.created_at,
      k.age_days,
      k.last_used_at,
      k.rotated_from === null ? null : k.created_at,
      [
        k.rotated_from && `rotated from ${k.rotated_from}`,
        k.replaced_by && `replaced by ${k.replaced_by}`,
      ]
        .filter(Boolean)
        .join('; '),
      `prefix ${k.prefix}${k.revoked_at === null ? '' : `; revoked ${k.revoked_at}`}${k.expires_at === null ? '' : `; expires ${k.expires_at}`}`,
    ]);
  }
  for (const c of review.oauth_clients) {
    rows.push([
      'oauth_client',
      c.id,
      c.name,
      c.status,
      list(c.scopes, ''),
      list(c.allowlist, ''),
      c.created_at,
      c.age_days,
      c.last_used_at,
      c.secret_rotated_at,
      c.secret_age_days === null
        ? 'public keys (no shared secret)'
        : `secret age ${c.secret_age_days} days`,
      `${c.auth_method}${c.deleted_at === null ? '' : `; deleted ${c.deleted_at}`}`,
    ]);
  }
  for (const s of review.sessions) {
    rows.push([
      'session',
      s.id,
      '',
      s.status,
      '(all scopes)',
      '',
      s.created_at,
      null,
      null,
      null,
      '',
      `expires ${s.expires_at}${s.revoked_at === null ? '' : `; revoked ${s.revoked_at}`}`,
    ]);
  }
  for (const w of review.webhook_endpoints) {
    rows.push([
      'webhook_endpoint',
      w.id,
      w.url,
      w.enabled ? 'enabled' : 'disabled',
      '',
      '',
      w.created_at,
      null,
      null,
      null,
      '',
      `events ${w.events.join(' ')}`,
    ]);
  }
  for (const e of review.export_destinations) {
    rows.push([
      'export_destination',
      e.export_id,
      e.name,
      'active',
      '',
      '',
      e.created_at,
      null,
      null,
      null,
      '',
      `${e.type}://${e.username ?? ''}@${e.host ?? ''}:${e.port ?? ''}${e.path ?? ''}`,
    ]);
  }
  const v = review.audit_log.verification;
  rows.push([
    'audit_chain',
    review.id,
    'audit log hash chain',
    v.valid ? 'verified' : 'broken',
    '',
    '',
    review.generated_at,
    null,
    null,
    null,
    '',
    `${v.entries_checked} entries checked ${review.period.from} to ${review.period.to}; ${review.audit_log.entries_in_period} of this account${
      v.first_broken === null
        ? ''
        : `; first broken entry ${v.first_broken.id} (${v.first_broken.reason})`
    }${v.head === null ? '' : `; head ${v.head.id} ${v.head.hash}`}`,
  ]);
  return stringify([[...CSV_COLUMNS], ...rows.map((r) => r.map(safeCell))], {
    record_delimiter: 'windows',
  });
}

/** The review as a report for the PDF: the same facts, one line each. */
export function reviewReport(review: AccessReview): ReportDocument {
  const v = review.audit_log.verification;
  return {
    title: 'User access review',
    preface: [
      `Account ${review.account.email} (${review.account.id}), ${review.account.plan} plan, ${review.account.status}, created ${review.account.created_at}.`,
      `Period ${review.period.from} to ${review.period.to}. Generated ${review.generated_at} by ${review.generated_by}; report ${review.id}.`,
      `Account allowlist: ${list(review.account.allowlist, '')}${review.account.allowlist.length === 0 ? ' (requests accepted from any address)' : ''}.`,
      'Evidence for SOC 2 CC6.1-CC6.3 (logical access): every credential that existed during the period, what it may do, from where, its age, use and rotation.',
    ],
    sections: [
      {
        heading: `API keys (${review.api_keys.length})`,
        lines: review.api_keys.map(
          (k) =>
            `${k.id} "${k.name}" (${k.prefix}...) - ${k.status}; scopes: ${list(k.scopes, 'all')}; allowlist: ${list(k.allowlist, '')}; created ${k.created_at} (${k.age_days} days); last used ${k.last_used_at ?? 'never'}${k.rotated_from === null ? '' : `; rotated from ${k.rotated_from}`}${k.replaced_by === null ? '' : `; replaced by ${k.replaced_by}`}${k.revoked_at === null ? '' : `; revoked ${k.revoked_at}`}${k.expires_at === null ? '' : `; expires ${k.expires_at}`}.`,
        ),
      },
      {
        heading: `OAuth clients (${review.oauth_clients.length})`,
        lines: review.oauth_clients.map(
          (c) =>
            `${c.id} "${c.name}" - ${c.status}; ${c.auth_method}; scopes: ${list(c.scopes, '')}; allowlist: ${list(c.allowlist, '')}; created ${c.created_at} (${c.age_days} days); last used ${c.last_used_at ?? 'never'}; secret ${c.secret_age_days === null ? 'none (public keys)' : `rotated ${c.secret_rotated_at ?? 'never'} (${c.secret_age_days} days old)`}${c.deleted_at === null ? '' : `; deleted ${c.deleted_at}`}.`,
        ),
      },
      {
        heading: `Sessions (${review.sessions.length})`,
        lines: review.sessions.map(
          (s) =>
            `${s.id} - ${s.status}; created ${s.created_at}; expires ${s.expires_at}${s.revoked_at === null ? '' : `; revoked ${s.revoked_at}`}.`,
        ),
      },
      {
        heading: `Webhook endpoints (${review.webhook_endpoints.length})`,
        lines: review.webhook_endpoints.map(
          (w) =>
            `${w.id} ${w.url} - ${w.enabled ? 'enabled' : 'disabled'}; events ${w.events.join(', ')}; created ${w.created_at}.`,
        ),
      },
      {
        heading: `Export destinations (${review.export_destinations.length})`,
        lines: review.export_destinations.map(
          (e) =>
            `${e.export_id} "${e.name}" - ${e.type}://${e.username ?? ''}@${e.host ?? ''}:${e.port ?? ''}${e.path ?? ''}; created ${e.created_at}.`,
        ),
      },
      {
        heading: 'Audit log',
        lines: [
          `Hash chain over the period: ${v.valid ? 'VERIFIED' : 'BROKEN'}; ${v.entries_checked} entries checked.`,
          ...(v.first_broken === null
            ? []
            : [
                `First broken entry: ${v.first_broken.id} written ${v.first_broken.created_at} (${v.first_broken.reason === 'hash' ? 'content does not match its hash' : 'does not link to the entry before it'}).`,
              ]),
          `Anchor (entry before the period): ${v.anchor === null ? 'start of the log' : `${v.anchor.id} ${v.anchor.hash}`}.`,
          `Head (last entry of the period): ${v.head === null ? 'none' : `${v.head.id} ${v.head.hash}`}.`,
          `This account's entries in the period: ${review.audit_log.entries_in_period}.`,
          ...Object.entries(review.audit_log.actions).map(([action, n]) => `${action}: ${n}`),
        ],
      },
    ],
    footer: `Access review ${review.id} - ${review.account.email} (${review.account.id}) - generated ${review.generated_at}`,
  };
}
