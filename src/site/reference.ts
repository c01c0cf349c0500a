import scalar from '@scalar/fastify-api-reference';
import type { FastifyInstance } from 'fastify';
import type { LicenseRegistry } from '../licensing/index.js';
import { brandOf, PRODUCT_NAME } from './brand.js';
import { escapeHtml } from '../lib/html.js';

const REFERENCE_PATH = '/docs/';

/** The renderer's light theme with text colours that meet WCAG AA contrast on its backgrounds. */
const READABLE_COLOURS = `body.light-mode, .light-mode .light-mode {
  --scalar-color-2: #4d4d4d; --scalar-color-3: #595959; --scalar-color-accent: #0b5cad;
  --scalar-color-blue: #0b5cad; --scalar-color-green: #0f6b2b; --scalar-color-orange: #8a4600;
  --scalar-color-yellow: #6d5200; --scalar-color-red: #b3261e; --scalar-color-purple: #6b3fa0;
  --scalar-sidebar-color-2: #4d4d4d; --scalar-sidebar-search-color: #4d4d4d;
}`;

/** The renderer's copy buttons have an icon only: each gets a name screen readers announce. */
const LABEL_COPY_BUTTONS = `<script>
new MutationObserver(() => {
  for (const button of document.querySelectorAll('button.scalar-code-copy:not([aria-label])'))
    button.setAttribute('aria-label', 'Copy to the clipboard');
}).observe(document.body, { childList: true, subtree: true });
</script>`;

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
      agent: { disabled: true },
      hideClientButton: true,
      // Only the samples of the document itself (curl, fetch, requests: x-codeSamples).
      hiddenClients: true,
      showDeveloperTools: 'never',
      forceDarkModeState: 'light',
      hideDarkModeToggle: true,
      customCss: READABLE_COLOURS,
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
      .replace('</body>', `${LABEL_COPY_BUTTONS}</body>`)
      .replace(/<title>[^<]*<\/title>/, `<title>API reference · ${escapeHtml(brand.name)}</title>`);
    done(null, page);
  });
}
