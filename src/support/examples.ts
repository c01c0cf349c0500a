/**
 * Examples in the API reference: the contacts and a support request of the account of the
 * accounts feature's examples (Enterprise: a dedicated account manager, P1), as the server
 * answered on 22 November 2026.
 */

/** GET and PATCH /api/v1/account/contacts */
export const CONTACTS_EXAMPLE = {
  name: 'Ada Lovelace',
  billing_email: 'invoices@example.com',
  technical_email: 'api@example.com',
  notices_opt_out: false,
  support: {
    channel: 'dedicated account manager',
    response_target: '4 hours',
    account_manager: { name: 'Jonas Weber', email: 'jonas.weber@salary-api.eu' },
  },
};

/** POST /api/v1/support/requests */
export const SUPPORT_REQUEST_EXAMPLE = {
  id: 'sup_J0YUfype1xS8T8IM',
  priority: 'P1',
  response_target: '4 hours',
  created_at: '2026-11-22T10:15:00.000Z',
};
