import type { SwaggerOptions } from '@fastify/swagger';
import { SCOPES } from '../auth/index.js';
import { baseUrlOf, type Config } from '../config/index.js';

/** OpenAPI 3.1 document settings; the paths come from the route schemas that validate requests. */
export function openApiOptions(config: Config): SwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'European Salary Data API',
        version: '1.0.0',
        description:
          'Gross annual pay percentiles for the 27 EU member states and 21 job categories, per seniority level and year. Every figure is modelled from published statistics (Eurostat, national statistical offices, ECB); each response names its data release, method and sources. Errors are RFC 9457 problem+json.',
        contact: {
          name: 'API support',
          email: 'support@salary-api.eu',
          url: 'https://salary-api.eu',
        },
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      },
      servers: [{ url: baseUrlOf(config) }],
      tags: [
        { name: 'Salary', description: 'Salary figures.' },
        {
          name: 'Bulk',
          description: 'Many countries or jobs in one request (Business and Enterprise).',
        },
        { name: 'Catalogue', description: 'Countries, job categories and levels.' },
        {
          name: 'Account',
          description: 'Sign-up, sessions, the account, its allowlist and audit log.',
        },
        { name: 'API keys', description: 'Create, list, rotate and revoke API keys.' },
        { name: 'Billing', description: 'Subscription, invoices and balance.' },
        { name: 'Usage', description: 'Request counts and quota.' },
        {
          name: 'Webhooks',
          description:
            'Signed notifications of data releases (Business and Enterprise), per Standard Webhooks.',
        },
        {
          name: 'Exports',
          description:
            'Scheduled bulk exports (Enterprise): a bulk selection delivered as a file to an SFTP server on a cron schedule.',
        },
        {
          name: 'OAuth clients',
          description:
            'OAuth 2.0 client credentials (Enterprise): clients that obtain short-lived access tokens at /oauth/token.',
        },
        { name: 'Operations', description: 'Health and readiness.' },
        {
          name: 'Compliance',
          description:
            "SOC 2 evidence (Enterprise): the operator's compliance documents, stamped per download, and the user access review.",
        },
        {
          name: 'SLA',
          description:
            'Measured uptime per account and month, and the credits applied automatically (Business and Enterprise); the rule is docs/sla.md.',
        },
        {
          name: 'Status',
          description: 'Public service status: components, daily uptime, incidents, maintenance.',
        },
        {
          name: 'Custom endpoints',
          description:
            'Saved queries an Enterprise account publishes at /api/v1/custom/{slug}, with their own OpenAPI document.',
        },
      ],
      components: {
        securitySchemes: {
          apiKey: {
            type: 'http',
            scheme: 'bearer',
            description: 'An API key (paid plans). Free-plan requests carry no credential.',
          },
          oauth2: {
            type: 'oauth2',
            description:
              'OAuth 2.0 client credentials (Enterprise): send the access token as `Authorization: Bearer <token>`; a DPoP-bound token (RFC 9449, `token_type: DPoP`) as `Authorization: DPoP <token>` with a fresh `DPoP` proof header on every request. See /.well-known/oauth-authorization-server and docs/oauth.md.',
            flows: {
              clientCredentials: {
                tokenUrl: `${baseUrlOf(config)}/oauth/token`,
                scopes: Object.fromEntries(SCOPES.map((s) => [s, `The ${s} scope.`])),
              },
            },
          },
        },
      },
      security: [{}, { apiKey: [] }, { oauth2: [] }],
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
  };
}
