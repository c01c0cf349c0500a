/**
 * Examples in the API reference: the OAuth client of the account of the accounts feature's
 * examples, created on 9 November 2026 for its reporting backend, as the server answered.
 */

/** GET and PATCH /api/v1/oauth/clients/{id}: the client after its secret was rotated. */
export const OAUTH_CLIENT_EXAMPLE = {
  id: 'ocl_eEla8NPy0UiJVnpG',
  client_id: 'ocl_eEla8NPy0UiJVnpG',
  name: 'reporting backend',
  scopes: ['salary:read', 'bulk:read'],
  allowlist: ['203.0.113.0/24'],
  token_endpoint_auth_method: 'client_secret_basic',
  jwks: null,
  created_at: '2026-11-09T15:02:48.000Z',
  updated_at: '2026-11-22T10:15:00.000Z',
  previous_secret_expires_at: '2026-11-23T10:15:00.000Z',
  dpop_bound: false,
};

/** POST /api/v1/oauth/clients: the secret is in this answer only. */
export const NEW_OAUTH_CLIENT_EXAMPLE = {
  ...OAUTH_CLIENT_EXAMPLE,
  allowlist: [],
  updated_at: OAUTH_CLIENT_EXAMPLE.created_at,
  previous_secret_expires_at: null,
  client_secret: 'ocs_iyvt4vZfHh-TB8W8csl3NT2BtnSeDdmGVluEotD1cX4',
};

/** GET /api/v1/oauth/clients */
export const OAUTH_CLIENT_LIST_EXAMPLE = { data: [OAUTH_CLIENT_EXAMPLE] };

/** POST /api/v1/oauth/clients/{id}/rotate-secret: the old secret works for 24 hours more. */
export const ROTATED_OAUTH_CLIENT_EXAMPLE = {
  ...OAUTH_CLIENT_EXAMPLE,
  client_secret: 'ocs_G8q5mySsGzNiZKtTuocLHdfCXwmIiDmoVP7uXacQSdk',
};
