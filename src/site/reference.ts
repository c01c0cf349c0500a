import scalar from '@scalar/fastify-api-reference';
import type { FastifyInstance } from 'fastify';
import type { LicenseRegistry } from '../licensing/index.js';
import { brandOf, PRODUCT_NAME } from './brand.js';
import { escapeHtml } from './html.js';

const REFERENCE_PATH = '/docs/';

/**
 * The API reference at /docs: Scalar's renderer, its script served from the npm package (no
 * CDN, no fonts or calls elsewhere), reading the OpenAPI document of /api/v1/openapi.json (which
 * a licensee's host gets in the licensee's name). Its page shell is Scalar's, given a language
 * and the brand's title here.
 */
export async function registerReference(
  app: FastifyInstance,
  licenses: LicenseRegistry,
): Promise<void> {
  await app.register(scalar, {
    routePrefix: '/docs',
    logLevel: 'silent',
    configuration: {
      url: '/api/v1/openapi.json',
      pageTitle: `API reference · ${PRODUCT_NAME}`,
      withDefaultFonts: false,
      telemetry: false,
      mcp: { disabled: true },
      hideClientButton: true,
      showDeveloperTools: 'never',
      defaultHttpClient: { targetKey: 'shell', clientKey: 'curl' },
      _integration: null,
    },
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    if (request.routeOptions.url !== REFERENCE_PATH || typeof payload !== 'string') {
      done(null, payload);
      return;
    }
    const brand = brandOf(licenses, request.headers.host);
    const page = payload
      .replace('<html>', '<html lang="en">')
      .replace(/<title>[^<]*<\/title>/, `<title>API reference · ${escapeHtml(brand.name)}</title>`);
    done(null, page);
  });
}
