/**
 * Examples in the API reference: the custom endpoint the account of the accounts feature's
 * examples published on 10 November 2026 (engineering pay in Germany), as the server answered.
 */

/** GET and PUT /api/v1/custom-endpoints/{id}: the endpoint after `lead` was added. */
export const CUSTOM_ENDPOINT_EXAMPLE = {
  id: 'cep_xd1i244K0UHFyoGB',
  slug: 'de-engineering',
  path: '/api/v1/custom/de-engineering',
  description: 'Engineering pay in Germany',
  query: {
    countries: ['DE'],
    jobs: ['software-engineer', 'civil-engineer'],
    levels: ['mid', 'senior', 'lead'],
    fields: ['p10', 'p90'],
  },
  parameters: ['job', 'level'],
  created_at: '2026-11-10T08:40:00.000Z',
  updated_at: '2026-11-22T10:15:00.000Z',
};

/** POST /api/v1/custom-endpoints */
export const NEW_CUSTOM_ENDPOINT_EXAMPLE = {
  id: 'cep_xd1i244K0UHFyoGB',
  slug: 'de-engineering',
  path: '/api/v1/custom/de-engineering',
  description: 'Engineering pay in Germany',
  query: {
    countries: ['DE'],
    jobs: ['software-engineer', 'civil-engineer'],
    levels: ['mid', 'senior'],
    fields: ['p10', 'p90'],
  },
  parameters: ['job', 'level'],
  created_at: '2026-11-10T08:40:00.000Z',
  updated_at: '2026-11-10T08:40:00.000Z',
};

/** GET /api/v1/custom-endpoints */
export const CUSTOM_ENDPOINT_LIST_EXAMPLE = { data: [CUSTOM_ENDPOINT_EXAMPLE] };
