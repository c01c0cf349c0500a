import Fastify, { type FastifyInstance } from 'fastify';
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

/** Scalar's routes: the page (`/docs/`, `/docs` redirects to it) and its script. */
const SCALAR_ROUTES = [REFERENCE_PATH, '/docs/js/scalar.js'];
/** The headers of Scalar's answers that are passed on (it sets no others). */
const SCALAR_HEADERS = ['content-type', 'location'];

let renderer: Promise<FastifyInstance> | undefined;

/**
 * Scalar's plugin on an instance of its own that only answers the reference's routes through
 * `inject`, made at the first request for one of them: its module (its renderer script is a
 * 4 MB string in it) is loaded then, not with the app. One per process, as its configuration is.
 */
function scalarRoutes(): Promise<FastifyInstance> {
  renderer ??= (async () => {
    const { default: scalar } = await import('@scalar/fastify-api-reference');
    const instance = Fastify({ routerOptions: { ignoreTrailingSlash: true } });
    await instance.register(scalar, {
      routePrefix: '/docs',
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
    await instance.ready();
    return instance;
  })().catch((error: unknown) => {
    renderer = undefined; // the next request tries again
    throw error;
  });
  return renderer;
}

/**
 * The API reference at /docs: Scalar's renderer, its script served from the npm package (no
 * CDN, no fonts or calls elsewhere), reading the OpenAPI document of /api/v1/openapi.json (which
 * a licensee's host gets in the licensee's name). Its page shell is Scalar's, given a language
 * and the brand's title here. Scalar is loaded by the first request for the reference
 * (`scalarRoutes`), which answers what Scalar answers.
 */
export async function registerReference(
  app: FastifyInstance,
  licenses: LicenseRegistry,
): Promise<void> {
  for (const url of SCALAR_ROUTES)
    app.get(url, { schema: { hide: true }, logLevel: 'silent' }, async (request, reply) => {
      const answer = await (
        await scalarRoutes()
      ).inject({ method: 'GET', url: request.url, headers: { host: request.headers.host ?? '' } });
      reply.code(answer.statusCode);
      for (const name of SCALAR_HEADERS) {
        const value = answer.headers[name];
        if (value !== undefined) reply.header(name, value);
      }
      // A redirect has no body, and so no content type.
      return answer.body === '' ? reply.send() : reply.send(answer.body);
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
