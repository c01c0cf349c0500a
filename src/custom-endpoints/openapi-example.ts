import { DEFAULT_PLANS } from '../plans/index.js';
import { CUSTOM_ENDPOINT_EXAMPLE } from './examples.js';
import { customOpenApi } from './openapi.js';

const YEARS = Array.from({ length: 13 }, (_, i) => 2014 + i);

/**
 * Example in the API reference: the document openapi.ts writes for the account of the accounts
 * feature's examples, licensed to Example Analytics GmbH (not white-label), with its one endpoint
 * of examples.ts under its custom response schema, over the bundled release (2014 to 2026).
 */
export const CUSTOM_OPENAPI_EXAMPLE = customOpenApi({
  endpoints: [
    {
      id: CUSTOM_ENDPOINT_EXAMPLE.id,
      accountId: 'acct_C3gpUOQrK2Z9FLWA',
      slug: CUSTOM_ENDPOINT_EXAMPLE.slug,
      description: CUSTOM_ENDPOINT_EXAMPLE.description,
      query: CUSTOM_ENDPOINT_EXAMPLE.query,
      parameters: CUSTOM_ENDPOINT_EXAMPLE.parameters,
      createdAt: CUSTOM_ENDPOINT_EXAMPLE.created_at,
      updatedAt: CUSTOM_ENDPOINT_EXAMPLE.updated_at,
      deletedAt: null,
    },
  ],
  plan: DEFAULT_PLANS.enterprise,
  schema: {
    fields: [
      { field: 'median', name: 'median_salary' },
      { field: 'p25', name: 'lower_quartile' },
      { field: 'p75', name: 'upper_quartile' },
    ],
  },
  known: { currentYear: 2026, years: YEARS },
  baseUrl: 'https://api.salary-api.eu',
  label: { licensee: 'Example Analytics GmbH', whiteLabel: false },
});
