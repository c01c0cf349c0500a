import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, onSendHookHandler } from 'fastify';
import { AppError } from '../errors/index.js';
import { problemResponses } from '../http/openapi-responses.js';
import { hookList } from '../http/route-hooks.js';
import type { Clock } from '../lib/clock.js';
import { normalHost, type LicenseRegistry } from './registry.js';
import { licenseView } from './service.js';

/** The licence of the account of the other features' examples (Example Analytics GmbH). */
const LICENSE_EXAMPLE = {
  licensee: 'Example Analytics GmbH',
  attribution: 'Data: Example Analytics, modelled from official statistics.',
  white_label: false,
  permitted_use: 'Pay benchmarks inside Example Analytics products for their customers.',
  term_end: '2027-10-31',
  active: true,
  recorded_at: '2026-11-02T10:05:00.000Z',
  updated_at: '2026-11-02T10:05:00.000Z',
};

export const LicenseSchema = Type.Object(
  {
    licensee: Type.String({ description: 'Who holds the licence.' }),
    attribution: Type.String({
      description: 'The attribution text the licensee shows with the data.',
    }),
    white_label: Type.Boolean({
      description: 'True: delivered data names the licensee, never this service.',
    }),
    permitted_use: Type.Union([Type.String(), Type.Null()]),
    term_end: Type.Union([Type.String({ format: 'date' }), Type.Null()], {
      description: 'The last day of the term; null: open-ended.',
    }),
    active: Type.Boolean({ description: 'False after the term’s last day.' }),
    recorded_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { examples: [LICENSE_EXAMPLE] },
);

/** GET /api/v1/account/license: the data licence recorded with the contract. */
export const licenseRoutes: FastifyPluginAsyncTypebox<{
  registry: LicenseRegistry;
  clock: Clock;
}> = async (app, opts) => {
  app.get(
    '/api/v1/account/license',
    {
      schema: {
        operationId: 'getLicense',
        tags: ['Account'],
        summary: 'The data licence of the account',
        description:
          'Recorded by the operator with the contract: licensee, attribution, white-label, permitted use and term. 404 when none is recorded.',
        response: { 200: LicenseSchema, ...problemResponses(401, 403, 404) },
      },
      config: { auth: { access: 'account', scope: 'account:read' } },
    },
    async (request) => {
      const license = opts.registry.license(request.principal.accountId as string);
      if (license === undefined)
        throw new AppError('NOT_FOUND', 'No data licence is recorded for this account.');
      return licenseView(license, opts.clock.now());
    },
  );
};

/** The documents whose `info` a licensee's host name gets. */
const DOCUMENT_PATHS = new Set(['/api/v1/openapi.json', '/docs/json']);

/**
 * Requests whose Host is mapped to a licensed account get the OpenAPI document (the docs page
 * reads it) titled with the licensee's name, its server that host (TLS at the proxy), and no
 * contact of this service. Called before those routes are added: it attaches itself to them as
 * they are.
 */
export function licenseeDocuments(app: FastifyInstance, registry: LicenseRegistry): void {
  const retitle: onSendHookHandler = (request, reply, payload, done) => {
    if (typeof payload !== 'string') {
      done(null, payload);
      return;
    }
    const license = registry.licenseOfHost(request.headers.host);
    if (license === undefined || reply.statusCode !== 200) {
      done(null, payload);
      return;
    }
    const document = JSON.parse(payload) as {
      info?: Record<string, unknown>;
      servers?: unknown;
    };
    document.info = {
      title: `${license.licensee} data API`,
      version: document.info?.version ?? '1.0.0',
      description: `Gross annual pay percentiles for EU member states, job categories and seniority levels, per year, licensed to ${license.licensee}. Every figure is modelled from published statistics; each response names its data release and method. ${license.attribution}`,
      contact: { name: license.licensee },
    };
    document.servers = [{ url: `https://${normalHost(request.headers.host ?? '')}` }];
    done(null, JSON.stringify(document));
  };
  // On those two routes only: every other response has no onSend step to pass.
  app.addHook('onRoute', (route) => {
    if (DOCUMENT_PATHS.has(route.url)) route.onSend = [...hookList(route.onSend), retitle];
  });
}
