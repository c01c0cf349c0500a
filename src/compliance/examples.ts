import { SCOPES } from '../auth/index.js';

/**
 * Examples in the API reference: the operator's SOC 2 report and the access review of the account
 * of the accounts feature's examples, generated on 22 November 2026 for the 90 days before.
 */

/** One document of GET /api/v1/compliance/documents. */
export const DOCUMENT_EXAMPLE = {
  id: 'cdoc_B-oOuLa3ZvjHdKDi',
  series: 'soc-2-type-ii-report',
  version: 1,
  current: true,
  title: 'SOC 2 Type II report',
  description:
    'Security and availability controls, examined by an independent auditor over twelve months.',
  period_start: '2025-10-01',
  period_end: '2026-09-30',
  file_name: 'soc2-type-ii-2026.pdf',
  size_bytes: 2184316,
  page_count: 68,
  added_at: '2026-10-28T12:00:00.000Z',
  download_url: '/api/v1/compliance/documents/cdoc_B-oOuLa3ZvjHdKDi',
};

/** GET /api/v1/compliance/documents */
export const DOCUMENT_LIST_EXAMPLE = { data: [DOCUMENT_EXAMPLE] };

/** GET /api/v1/compliance/access-review */
export const ACCESS_REVIEW_EXAMPLE = {
  id: 'review_A9VUecMtHLqyHFP3',
  generated_at: '2026-11-22T10:15:00.000Z',
  generated_by: 'account:acct_C3gpUOQrK2Z9FLWA',
  period: { from: '2026-08-24T10:15:00.000Z', to: '2026-11-22T10:15:00.000Z' },
  account: {
    id: 'acct_C3gpUOQrK2Z9FLWA',
    email: 'ada@example.com',
    plan: 'enterprise',
    status: 'active',
    created_at: '2026-10-05T08:12:09.000Z',
    allowlist: [],
  },
  api_keys: [
    {
      id: 'key_ohA8ZrEgBejAqSaC',
      name: 'Default key',
      prefix: 'sk_live_qTe2',
      scopes: null,
      allowlist: [],
      status: 'revoked',
      created_at: '2026-10-05T08:24:45.000Z',
      age_days: 48,
      last_used_at: null,
      rotated_from: null,
      replaced_by: null,
      expires_at: null,
      revoked_at: '2026-11-22T10:15:00.000Z',
    },
    {
      id: 'key_RTzmgcG1teoaSN97',
      name: 'staging',
      prefix: 'sk_test_PKCU',
      scopes: [...SCOPES],
      allowlist: [],
      status: 'active',
      created_at: '2026-11-03T09:30:11.000Z',
      age_days: 19,
      last_used_at: null,
      rotated_from: null,
      replaced_by: null,
      expires_at: null,
      revoked_at: null,
    },
    {
      id: 'key_d3INLxTOsoGk4Hxj',
      name: 'reporting',
      prefix: 'sk_live_RrgE',
      scopes: ['salary:read', 'bulk:read'],
      allowlist: ['203.0.113.0/24'],
      status: 'rotating',
      created_at: '2026-11-03T09:30:11.000Z',
      age_days: 19,
      last_used_at: '2026-11-21T16:47:05.000Z',
      rotated_from: null,
      replaced_by: 'key_CUYf4vbEzOsEWEnc',
      expires_at: '2026-11-23T10:15:00.000Z',
      revoked_at: null,
    },
  ],
  oauth_clients: [
    {
      id: 'ocl_eEla8NPy0UiJVnpG',
      name: 'reporting backend',
      auth_method: 'client_secret_basic',
      scopes: ['salary:read', 'bulk:read'],
      allowlist: ['203.0.113.0/24'],
      status: 'active',
      created_at: '2026-11-09T15:02:48.000Z',
      age_days: 12,
      last_used_at: null,
      secret_rotated_at: '2026-11-22T10:15:00.000Z',
      secret_age_days: 0,
      deleted_at: null,
    },
  ],
  sessions: [
    {
      id: 'ses_cMJ5uJJSkefYoGFv',
      status: 'expired',
      created_at: '2026-10-05T08:12:09.000Z',
      expires_at: '2026-11-04T08:12:09.000Z',
      revoked_at: null,
    },
    {
      id: 'ses_ypwsQt_oU7ImvlYc',
      status: 'expired',
      created_at: '2026-10-05T08:13:40.000Z',
      expires_at: '2026-11-04T08:13:40.000Z',
      revoked_at: null,
    },
    {
      id: 'ses_jJaPXycCn2UyPPGS',
      status: 'active',
      created_at: '2026-11-02T10:20:41.000Z',
      expires_at: '2026-12-02T10:20:41.000Z',
      revoked_at: null,
    },
  ],
  webhook_endpoints: [
    {
      id: 'wh_UdIoqAQk08AVbDDz',
      url: 'https://hooks.example.com/salary',
      events: ['data.updated'],
      enabled: true,
      created_at: '2026-11-04T11:20:33.000Z',
    },
  ],
  export_destinations: [
    {
      export_id: 'exp_hNQQ4CDmOsT2N8NN',
      name: 'Monthly DE archive',
      type: 'webhook',
      host: null,
      port: null,
      username: null,
      path: null,
      created_at: '2026-11-06T13:45:20.000Z',
    },
  ],
  audit_log: {
    entries_in_period: 21,
    actions: {
      'accounts.create': 1,
      'accounts.email_verified': 1,
      'accounts.set_response_schema': 1,
      'billing.details_set': 1,
      'custom_endpoints.create': 1,
      'invoices.mark_paid': 4,
      'keys.create': 3,
      'licenses.record': 1,
      'mandates.give': 1,
      'oauth.client_create': 1,
      'sessions.create': 2,
      'subscriptions.change': 3,
      'webhooks.create': 1,
    },
    verification: {
      valid: true,
      from: '2026-08-24T10:15:00.000Z',
      to: '2026-11-22T10:15:00.000Z',
      entries_checked: 22,
      first_broken: null,
      anchor: null,
      head: { id: 22, hash: '246cffaf84d05b28fbfdfde0e5788c38dbea8fc9a6fd7d93485de8e6340fc34d' },
    },
  },
};
