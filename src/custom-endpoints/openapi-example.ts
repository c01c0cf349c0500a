/**
 * Example in the API reference: the document openapi.ts wrote for the account of the accounts
 * feature's examples, its one endpoint of examples.ts under its custom response schema.
 */
export const CUSTOM_OPENAPI_EXAMPLE = {
  openapi: '3.1.0',
  info: {
    title: 'Example Analytics GmbH data API',
    version: '1.0.0',
    description:
      'The custom endpoints of one account: saved queries over gross annual pay percentiles (EUR) for EU member states, job categories and seniority levels. Every figure is modelled from published statistics; `meta` names the release and the method.',
    contact: { name: 'API support', email: 'support@salary-api.eu', url: 'https://salary-api.eu' },
  },
  servers: [{ url: 'https://api.salary-api.eu' }],
  security: [{ apiKey: [] }],
  tags: [{ name: 'Custom endpoints', description: 'Saved queries published by the account.' }],
  paths: {
    '/api/v1/custom/de-engineering': {
      get: {
        operationId: 'deEngineering',
        tags: ['Custom endpoints'],
        summary: 'Engineering pay in Germany',
        description:
          'Engineering pay in Germany\n\nSaved query: {"jobs":["software-engineer","civil-engineer"],"fields":["p10","p90"],"levels":["mid","senior","lead"],"countries":["DE"]}. Parameters narrow within the saved values: job, level.',
        parameters: [
          {
            name: 'job',
            in: 'query',
            required: false,
            description: 'One of the job categories this endpoint serves.',
            schema: { type: 'string', enum: ['software-engineer', 'civil-engineer'] },
          },
          {
            name: 'level',
            in: 'query',
            required: false,
            description: 'One of the seniority levels this endpoint serves.',
            schema: { type: 'string', enum: ['mid', 'senior', 'lead'] },
          },
          {
            name: 'release',
            in: 'query',
            required: false,
            description:
              'Answer from this kept data release (GET /api/v1/releases); the active release when omitted. Free reaches the active release, Developer and Business the previous one too, Enterprise every kept release.',
            schema: {
              pattern: '^[0-9]{4}\\.[0-9]{2}\\.[0-9]+$',
              maxLength: 20,
              examples: ['2026.11.5'],
              type: 'string',
            },
          },
          {
            name: 'as_of',
            in: 'query',
            required: false,
            description:
              'Answer from the release in effect on this date (YYYY-MM-DD): the newest kept release published on or before it. Not together with `release`.',
            schema: { format: 'date', examples: ['2026-11-26'], type: 'string' },
          },
        ],
        responses: {
          '200': {
            description: 'The figures.',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: {
                    data: {
                      type: 'array',
                      items: {
                        type: 'object',
                        properties: {
                          median_salary: { type: ['integer', 'null'], title: 'median' },
                          lower_quartile: { type: ['integer', 'null'], title: 'p25' },
                          upper_quartile: { type: ['integer', 'null'], title: 'p75' },
                        },
                        additionalProperties: false,
                      },
                    },
                    meta: {
                      type: 'object',
                      required: ['count', 'release', 'source', 'methodology_url', 'modelled'],
                      properties: {
                        country: {
                          type: 'object',
                          required: ['code', 'name'],
                          properties: { code: { type: 'string' }, name: { type: 'string' } },
                        },
                        job: {
                          type: 'object',
                          required: ['slug', 'title', 'isco_code'],
                          properties: {
                            slug: { type: 'string' },
                            title: { type: 'string' },
                            isco_code: { type: 'string' },
                          },
                        },
                        year: { type: 'integer' },
                        years: { type: 'array', items: { type: 'integer' } },
                        count: { description: 'Number of records in data.', type: 'integer' },
                        release: {
                          type: 'object',
                          required: [
                            'version',
                            'created_at',
                            'current_year',
                            'last_published_year',
                          ],
                          properties: {
                            version: { type: 'string' },
                            created_at: { format: 'date-time', type: 'string' },
                            current_year: { type: 'integer' },
                            last_published_year: { type: 'integer' },
                          },
                        },
                        source: {
                          description:
                            'Short note of how the figures were made and from which publishers.',
                          type: 'string',
                        },
                        methodology_url: {
                          description:
                            'Where every modelling step, number and caveat is documented.',
                          type: 'string',
                        },
                        modelled: {
                          description: 'Every figure is modelled from published statistics.',
                          const: true,
                          type: 'boolean',
                        },
                        attribution: {
                          description:
                            "White-label accounts: the licensee's attribution text, in place of this service's name.",
                          type: 'string',
                        },
                        mode: {
                          description:
                            'Present only in answers to a test-mode key (sk_test_…): the same figures, outside quota, usage and billing. Absent for live keys.',
                          const: 'test',
                          type: 'string',
                        },
                      },
                    },
                  },
                  required: ['data', 'meta'],
                },
              },
              'text/csv': { schema: { type: 'string' } },
              'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': {
                schema: { type: 'string', format: 'binary' },
              },
              'application/xml': { schema: { type: 'string' } },
              'application/vnd.apache.parquet': { schema: { type: 'string', format: 'binary' } },
            },
          },
          '400': {
            description: 'A parameter outside the values this endpoint serves.',
            content: {
              'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } },
            },
          },
          '401': {
            description: 'Missing or invalid credential.',
            content: {
              'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } },
            },
          },
          '403': {
            description: 'The plan or the key does not allow it.',
            content: {
              'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } },
            },
          },
          '404': {
            description: 'No such endpoint for this account, or no data.',
            content: {
              'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } },
            },
          },
          '406': {
            description: 'The Accept header names no format this endpoint produces.',
            content: {
              'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } },
            },
          },
          '429': {
            description: 'Rate limit reached; see Retry-After.',
            content: {
              'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } },
            },
          },
          '503': {
            description: 'Temporarily unavailable; see Retry-After.',
            content: {
              'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } },
            },
          },
        },
      },
    },
  },
  components: {
    securitySchemes: {
      apiKey: { type: 'http', scheme: 'bearer', description: 'An API key of the account.' },
    },
    schemas: {
      Problem: {
        type: 'object',
        description: 'RFC 9457 problem details.',
        properties: {
          type: { type: 'string' },
          title: { type: 'string' },
          status: { type: 'integer' },
          detail: { type: 'string' },
          instance: { type: 'string' },
        },
      },
    },
  },
};
