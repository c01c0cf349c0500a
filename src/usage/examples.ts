/**
 * Example in the API reference: the week to Sunday 22 November 2026, 10:15 UTC, of the account
 * of the accounts feature's examples (Enterprise: no request limit). The figures add up as the
 * server adds them: every request once by day, endpoint, status and key (or session).
 */
export const USAGE_EXAMPLE = {
  from: '2026-11-16T00:00:00.000Z',
  to: '2026-11-23T00:00:00.000Z',
  granularity: 'day',
  total: 21998,
  series: [
    { start: '2026-11-16T00:00:00.000Z', requests: 4210, errors: 12 },
    { start: '2026-11-17T00:00:00.000Z', requests: 4388, errors: 9 },
    { start: '2026-11-18T00:00:00.000Z', requests: 3975, errors: 15 },
    { start: '2026-11-19T00:00:00.000Z', requests: 4502, errors: 7 },
    { start: '2026-11-20T00:00:00.000Z', requests: 4124, errors: 11 },
    { start: '2026-11-21T00:00:00.000Z', requests: 612, errors: 2 },
    { start: '2026-11-22T00:00:00.000Z', requests: 187, errors: 0 },
  ],
  by_endpoint: {
    'GET /api/v1/salary': 14630,
    'GET /api/v1/bulk/jobs': 5210,
    'GET /api/v1/salary/history': 1862,
    'GET /api/v1/custom/de-engineering': 240,
    'GET /api/v1/usage': 35,
    'GET /api/v1/account': 6,
    'GET /api/v1/keys': 4,
    'GET /api/v1/exports/runs/:run_id': 3,
    'PATCH /api/v1/keys/:id': 1,
    'POST /api/v1/keys/:id/rotate': 1,
    'DELETE /api/v1/keys/:id': 1,
    'POST /api/v1/exports/:id/run': 1,
    'POST /api/v1/oauth/clients/:id/rotate-secret': 1,
    'POST /api/v1/webhooks/:id/rotate-secret': 1,
    'PUT /api/v1/custom-endpoints/:id': 1,
    'GET /api/v1/compliance/access-review': 1,
  },
  by_status: { '200': 21939, '201': 2, '202': 1, '400': 31, '404': 18, '429': 7 },
  by_key: { key_d3INLxTOsoGk4Hxj: 20310, key_ohA8ZrEgBejAqSaC: 1632, session: 56 },
  quota: { limit: null, used: null, remaining: null, window: null, resets_at: null },
};
