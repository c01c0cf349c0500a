import type { CustomQuery, ParameterName } from './query.js';

/**
 * Examples in the API reference: the custom endpoint the account of the accounts feature's
 * examples published on 10 November 2026 (engineering pay in Germany), as the server answered.
 */

// In the order the database keeps a saved query's keys, which the endpoint's description shows.
const QUERY: CustomQuery = {
  jobs: ['software-engineer', 'civil-engineer'],
  fields: ['p10', 'p90'],
  levels: ['mid', 'senior', 'lead'],
  countries: ['DE'],
};
const PARAMETERS: ParameterName[] = ['job', 'level'];

/** GET and PUT /api/v1/custom-endpoints/{id}: the endpoint after `lead` was added. */
export const CUSTOM_ENDPOINT_EXAMPLE = {
  id: 'cep_xd1i244K0UHFyoGB',
  slug: 'de-engineering',
  path: '/api/v1/custom/de-engineering',
  description: 'Engineering pay in Germany',
  query: QUERY,
  parameters: PARAMETERS,
  created_at: '2026-11-10T08:40:00.000Z',
  updated_at: '2026-11-22T10:15:00.000Z',
};

/** POST /api/v1/custom-endpoints */
export const NEW_CUSTOM_ENDPOINT_EXAMPLE = {
  ...CUSTOM_ENDPOINT_EXAMPLE,
  query: { ...QUERY, levels: ['mid', 'senior'] },
  updated_at: CUSTOM_ENDPOINT_EXAMPLE.created_at,
};

/** GET /api/v1/custom-endpoints */
export const CUSTOM_ENDPOINT_LIST_EXAMPLE = { data: [CUSTOM_ENDPOINT_EXAMPLE] };
