/**
 * Examples in the API reference: one account, as the server answered for it, signed up on
 * 5 October 2026 by Example Analytics GmbH, on Enterprise since 2 November, read on
 * 22 November 2026 at 10:15 UTC. The other features' examples show the same account.
 */

/** The account (GET /api/v1/account without `support`). */
export const ACCOUNT_EXAMPLE = {
  id: 'acct_C3gpUOQrK2Z9FLWA',
  email: 'ada@example.com',
  plan: 'enterprise',
  status: 'active',
  allowlist: [],
  created_at: '2026-10-05T08:12:09.000Z',
  email_verified_at: '2026-10-05T08:13:40.000Z',
};

/** POST /api/v1/email-verification: the account once its address is confirmed. */
export const VERIFIED_ACCOUNT_EXAMPLE = { ...ACCOUNT_EXAMPLE, plan: 'free' };

/** POST /api/v1/accounts: a new account on Free, its address not confirmed yet, and a session. */
export const SIGN_UP_EXAMPLE = {
  account: { ...VERIFIED_ACCOUNT_EXAMPLE, email_verified_at: null },
  session: {
    token: 'sess_wAupekkIgYuO9Khe-ab-yGfevL_SDMnaQKiwozgb39k',
    expires_at: '2026-11-04T08:12:09.000Z',
  },
};

/** POST /api/v1/account/email-verification: a new link mailed to an address not confirmed yet. */
export const VERIFICATION_MAIL_EXAMPLE = { sent: true, email_verified_at: null };

/** POST /api/v1/sessions and /api/v1/sessions/totp. */
export const SESSION_EXAMPLE = {
  token: 'sess_7T5ye3koapqxAomWCfYqSlpQB8hflvBnDaw5H2-zf-Y',
  expires_at: '2026-12-22T10:15:00.000Z',
};

/** POST /api/v1/sessions with two-factor sign-in on: the challenge to answer with a code. */
export const TOTP_CHALLENGE_EXAMPLE = {
  totp_required: true,
  challenge: 'tfa_Hq3Zt0bX7cVn1LpR9sWy4Ke8uJ2mA6dF5gQoT_iN-vE',
  expires_at: '2026-11-22T10:20:00.000Z',
};

/** GET /api/v1/account */
export const ACCOUNT_VIEW_EXAMPLE = {
  ...ACCOUNT_EXAMPLE,
  support: {
    channel: 'dedicated account manager',
    response_target: '4 hours',
    account_manager: { name: 'Jonas Weber', email: 'jonas.weber@salary-api.eu' },
  },
};

/** PUT /api/v1/account/allowlist */
export const ALLOWLIST_EXAMPLE = { ...ACCOUNT_EXAMPLE, allowlist: ['203.0.113.0/24'] };

/** POST /api/v1/account/password and /api/v1/password-reset/confirm. */
export const SESSIONS_REVOKED_EXAMPLE = { sessions_revoked: 2 };

/** GET and PUT /api/v1/account/schema. */
export const RESPONSE_SCHEMA_EXAMPLE = {
  fields: [
    { field: 'median', name: 'median_salary' },
    { field: 'p25', name: 'lower_quartile' },
    { field: 'p75', name: 'upper_quartile' },
  ],
};

/** DELETE /api/v1/account/schema: the standard fields again. */
export const NO_RESPONSE_SCHEMA_EXAMPLE = { fields: [] };

/** GET /api/v1/account/audit-log?limit=4&verify=true */
export const AUDIT_LOG_EXAMPLE = {
  data: [
    {
      id: 35,
      actor: 'account:acct_C3gpUOQrK2Z9FLWA',
      action: 'sessions.create',
      data: {},
      ip: '203.0.113.24',
      created_at: '2026-11-22T10:15:00.000Z',
    },
    {
      id: 34,
      actor: 'account:acct_C3gpUOQrK2Z9FLWA',
      action: 'accounts.change_password',
      data: { sessions_revoked: 2 },
      ip: '203.0.113.24',
      created_at: '2026-11-22T10:15:00.000Z',
    },
    {
      id: 33,
      actor: 'account:acct_C3gpUOQrK2Z9FLWA',
      action: 'accounts.update_contacts',
      data: {
        name: 'Ada Lovelace',
        billing_email: 'invoices@example.com',
        technical_email: 'api@example.com',
      },
      ip: '203.0.113.24',
      created_at: '2026-11-22T10:15:00.000Z',
    },
    {
      id: 32,
      actor: 'account:acct_C3gpUOQrK2Z9FLWA',
      action: 'compliance.access_review_generated',
      data: {
        to: '2026-11-22T10:15:00.000Z',
        from: '2026-08-24T10:15:00.000Z',
        format: 'json',
        review_id: 'review_A9VUecMtHLqyHFP3',
        chain_valid: true,
      },
      ip: '203.0.113.24',
      created_at: '2026-11-22T10:15:00.000Z',
    },
  ],
  verification: {
    valid: true,
    from: null,
    to: null,
    entries_checked: 35,
    first_broken: null,
    anchor: null,
    head: { id: 35, hash: '48e849199e1864b0b240ba95f2b5659f70b7794e1243faed6475f819f309ebd7' },
  },
};
