import { SCOPES } from '../auth/index.js';

/**
 * Examples in the API reference: the keys of the account the other examples show (Example
 * Analytics GmbH on Enterprise), as the server answered for them, secrets included.
 */

/** A live key with two scopes and an IP allowlist, used the day before. */
export const KEY_EXAMPLE = {
  id: 'key_d3INLxTOsoGk4Hxj',
  name: 'reporting',
  prefix: 'sk_live_RrgE',
  mode: 'live',
  scopes: ['salary:read', 'bulk:read'],
  allowlist: ['203.0.113.0/24'],
  created_at: '2026-11-03T09:30:11.000Z',
  last_used_at: '2026-11-21T16:47:05.000Z',
  expires_at: null,
  revoked_at: null,
  status: 'active',
};

/** POST /api/v1/keys: the key as created, its secret shown this once. */
export const NEW_KEY_EXAMPLE = {
  ...KEY_EXAMPLE,
  allowlist: [],
  last_used_at: null,
  key: 'sk_live_RrgEiFU3etDoPB41Tkpm5evKxtRpxQUfRH2a19QwEq4',
};

/** DELETE /api/v1/keys/{id}: the account's first key, revoked. */
export const REVOKED_KEY_EXAMPLE = {
  ...KEY_EXAMPLE,
  id: 'key_ohA8ZrEgBejAqSaC',
  name: 'Default key',
  prefix: 'sk_live_qTe2',
  scopes: null,
  allowlist: [],
  created_at: '2026-10-05T08:24:45.000Z',
  last_used_at: null,
  revoked_at: '2026-11-22T10:15:00.000Z',
  status: 'revoked',
};

/** A test key made with a session: every scope. */
const TEST_KEY = {
  ...KEY_EXAMPLE,
  id: 'key_RTzmgcG1teoaSN97',
  name: 'staging',
  prefix: 'sk_test_PKCU',
  mode: 'test',
  scopes: [...SCOPES],
  allowlist: [],
  last_used_at: null,
};

/** The key rotation put in the place of KEY_EXAMPLE. */
const SUCCESSOR = {
  ...KEY_EXAMPLE,
  id: 'key_CUYf4vbEzOsEWEnc',
  prefix: 'sk_live_g7zu',
  created_at: '2026-11-22T10:15:00.000Z',
  last_used_at: null,
};

/** KEY_EXAMPLE in its 24 hours after the rotation. */
const ROTATED = { ...KEY_EXAMPLE, expires_at: '2026-11-23T10:15:00.000Z', status: 'expiring' };

/** GET /api/v1/keys: a revoked key, a test key, and a key in its 24 hours after rotation with its successor. */
export const KEY_LIST_EXAMPLE = { data: [REVOKED_KEY_EXAMPLE, TEST_KEY, ROTATED, SUCCESSOR] };

/** POST /api/v1/keys/{id}/rotate */
export const KEY_ROTATION_EXAMPLE = {
  key: { ...SUCCESSOR, key: 'sk_live_g7zu_nSquz7zmc9uuSJlCbiQhxeQ-ZlR0wpI5ndxfEw' },
  previous: ROTATED,
};
