import accepts from '@fastify/accepts';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Principal } from '../auth/index.js';
import { AppError, errorCodeOfSlug, problemType } from '../errors/index.js';
import type { LicenseRegistry } from '../licensing/index.js';
import { ORIGIN_VARY, requestOrigin } from '../http/origin.js';
import type { Plan, PlanId } from '../plans/index.js';
import type { SalaryDataStore, SalaryIndex, SalaryService } from '../salary/index.js';
import { brandOf } from './brand.js';
import { readChangelog, readDoc, readOptionalDoc } from './documents.js';
import { errorIndexPage, errorMeanings, errorPage, notFoundPage } from './error-pages.js';
import { EXAMPLE_QUERY, homePage, orderedPlans } from './home.js';
import { page, PAGE_CSP } from './layout.js';
import { renderMarkdown } from './markdown.js';
import { guidePage, guidesIndexPage, loadGuideImages, loadGuides } from './guides.js';
import { methodologyPage, validationHtml } from './methodology.js';
import { registerReference } from './reference.js';
import type { ReleaseCatalog } from '../releases/index.js';
import { releasesPage } from './releases-page.js';
import { statusPage } from './status-page.js';
import type { SlaParts } from '../sla/index.js';
import { FAVICON_SVG } from './layout.js';
import { LEGAL_DOCUMENTS, LEGAL_FILE_SETTINGS } from '../config/index.js';
import { LEGAL_PAGES, legalTexts, type LegalSettings } from './legal.js';
import { markup } from '../lib/html.js';
import type { PlanContacts } from './home.js';

export interface SiteDeps {
  /** PUBLIC_BASE_URL without a trailing slash; undefined: each request's own origin. */
  publicBaseUrl: string | undefined;
  plans: Readonly<Record<PlanId, Plan>>;
  salary: SalaryService;
  data: SalaryDataStore;
  releaseCatalog: ReleaseCatalog;
  licenses: LicenseRegistry;
  /** The seller, support address and the operator's legal texts the legal pages are made of. */
  legal: LegalSettings;
  /** Who a buyer of each plan writes to (SUPPORT_EMAIL, SALES_EMAIL, COMMUNITY_URL). */
  contacts: PlanContacts;
  /** The uptime SLA's parts; the status page is served when they are given. */
  sla?: Pick<SlaParts, 'status'>;
}

/** What an unanswered address can be told in: the problem document (JSON) first, or a page. */
const PROBLEM_OR_PAGE = ['application/json', 'application/problem+json', 'text/html'];

/** Where the quick start's examples point; replaced by the address the page is read at. */
const EXAMPLE_ORIGIN = 'http://localhost:3000';

/**
 * The public pages: the front page, the API reference with its quick start and changelog, the
 * methodology and one page per error code. It also decides the base of every problem `type`
 * (so it is registered at the root, not encapsulated).
 */
const site: FastifyPluginAsync<SiteDeps> = async (app, deps) => {
  const { licenses } = deps;
  const anonymous: Principal = {
    kind: 'anonymous',
    plan: deps.plans.free,
    accountId: null,
    keyId: null,
    sessionId: null,
    scopes: null,
    allowlists: [],
    responseSchema: null,
    limitBucket: 'site',
  };
  const methodologyMarkdown = readDoc('methodology.md');
  const validationMarkdown = readOptionalDoc('validation.md');
  const methodology = renderMarkdown(methodologyMarkdown);
  const validation = validationHtml(validationMarkdown);
  const meanings = errorMeanings(readDoc('errors.md'));
  const quickStart = readDoc('quick-start.md');
  const changelog = renderMarkdown(readChangelog());

  /** Whether a request's pages are at an address it names itself (not PUBLIC_BASE_URL). */
  const atOwnOrigin = (request: FastifyRequest): boolean =>
    deps.publicBaseUrl === undefined || licenses.licenseOfHost(request.headers.host) !== undefined;
  /** Where this server's pages are for a request: a licensee's host itself, else PUBLIC_BASE_URL. */
  const pagesBase = (request: FastifyRequest): string =>
    atOwnOrigin(request) ? requestOrigin(request) : (deps.publicBaseUrl ?? '');

  app.decorate('problemTypeBase', (request: FastifyRequest): string | null => {
    const accountId = (request.principal as Principal | null)?.accountId ?? null;
    if (accountId !== null && licenses.labelling(accountId) !== null) {
      const host = licenses.hostOf(accountId);
      return host === undefined ? null : `https://${host}`;
    }
    return pagesBase(request);
  });

  // A browser asking for an address outside the API is shown a page; API clients keep the
  // problem+json answer (Accept negotiated by @fastify/accepts: HTML only when preferred).
  await app.register(accepts);
  app.decorate('notFoundPage', (request: FastifyRequest): string | null => {
    const path = request.url.split('?')[0] ?? '/';
    const wantsHtml = request.accepts().type(PROBLEM_OR_PAGE) === 'text/html';
    if (!wantsHtml || !['GET', 'HEAD'].includes(request.method) || path.startsWith('/api/'))
      return null;
    return notFoundPage(brandOf(licenses, request.headers.host), path.slice(0, 200));
  });

  /** The example answer, made once per loaded release. */
  let example: { index: SalaryIndex; body: unknown } | undefined;
  function exampleAnswer(): unknown {
    const index = deps.data.index;
    if (index === undefined) return undefined;
    if (example?.index !== index) {
      const query = Object.fromEntries(new URLSearchParams(EXAMPLE_QUERY));
      const { data, meta } = deps.salary.select(query, anonymous, 'json');
      example = { index, body: { data, meta } };
    }
    return example.body;
  }

  // Shared caches keep a page for five minutes. Every page carries the brand of its Host; one
  // that names its own address (no PUBLIC_BASE_URL, or a licensee's host) varies on what that
  // address is read from too, so no request chooses the address another reader is shown.
  const cachedFor = (vary: string) => ({
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': PAGE_CSP,
    'cache-control': 'public, max-age=300',
    vary,
  });
  const byHost = cachedFor('Host');
  const byOrigin = cachedFor(ORIGIN_VARY);
  const pageHeaders = (request: FastifyRequest) => (atOwnOrigin(request) ? byOrigin : byHost);
  const hidden = { schema: { hide: true } };

  app.get('/', hidden, async (request, reply) =>
    reply.headers(pageHeaders(request)).send(
      homePage({
        brand: brandOf(licenses, request.headers.host),
        origin: pagesBase(request),
        plans: orderedPlans(deps.plans),
        release: deps.data.index?.release,
        example: exampleAnswer(),
        contacts: deps.contacts,
      }),
    ),
  );

  // Encapsulated: the reference's hook runs for its own page only.
  await app.register(async (reference) => registerReference(reference, licenses));
  // The OpenAPI document where the earlier docs page read it.
  app.get('/docs/json', hidden, async (_request, reply) =>
    reply.type('application/json').send(app.swagger()),
  );
  app.get('/docs/quick-start', hidden, async (request, reply) => {
    const text = quickStart.replaceAll(EXAMPLE_ORIGIN, pagesBase(request));
    return reply.headers(pageHeaders(request)).send(
      page({
        brand: brandOf(licenses, request.headers.host),
        title: 'Quick start',
        description: 'Sign up, create a key, make the first call, handle limits and webhooks.',
        current: 'quick-start',
        body: renderMarkdown(text),
      }),
    );
  });
  const guides = loadGuides();
  const guideImages = loadGuideImages();
  app.get('/docs/guides', hidden, async (request, reply) =>
    reply
      .headers(pageHeaders(request))
      .send(guidesIndexPage(brandOf(licenses, request.headers.host), guides)),
  );
  for (const guide of guides) {
    const { body } = guide;
    if (body === undefined) continue;
    app.get(`/docs/guides/${guide.name}`, hidden, async (request, reply) =>
      reply
        .headers(pageHeaders(request))
        .send(guidePage(brandOf(licenses, request.headers.host), { ...guide, body })),
    );
  }
  for (const [file, bytes] of guideImages)
    app.get(`/docs/guides/${file}`, hidden, async (_request, reply) =>
      reply
        .headers({ 'content-type': 'image/png', 'cache-control': 'public, max-age=86400' })
        .send(bytes),
    );
  app.get('/docs/changelog', hidden, async (request, reply) =>
    reply.headers(pageHeaders(request)).send(
      page({
        brand: brandOf(licenses, request.headers.host),
        title: 'Changelog',
        description: 'Changes to the API, and the versioning and deprecation policy.',
        current: 'changelog',
        body: changelog,
      }),
    ),
  );

  app.get(
    '/methodology',
    {
      schema: {
        tags: ['Operations'],
        operationId: 'getMethodology',
        summary: 'How the salary figures are made (HTML page)',
        description:
          'Sources and publishers, the model in plain words, what confidence and basis mean, charts of the loaded release and the validation tables.',
        produces: ['text/html'],
        response: {
          200: {
            description: 'The methodology page.',
            content: { 'text/html': { schema: { type: 'string' } } },
          },
        },
      },
    },
    async (request, reply) =>
      reply.headers(pageHeaders(request)).send(
        methodologyPage({
          brand: brandOf(licenses, request.headers.host),
          document: methodology,
          validation,
          index: deps.data.index,
        }),
      ),
  );
  app.get(
    '/methodology.md',
    {
      schema: {
        tags: ['Operations'],
        operationId: 'getMethodologyMarkdown',
        summary: 'How the salary figures are made (Markdown)',
        description: 'The methodology page’s text and validation tables as Markdown.',
        produces: ['text/markdown'],
        response: {
          200: {
            description: 'The methodology document.',
            content: { 'text/markdown': { schema: { type: 'string' } } },
          },
        },
      },
    },
    async (_request, reply) =>
      reply
        .type('text/markdown; charset=utf-8')
        .send(
          validationMarkdown === undefined
            ? methodologyMarkdown
            : `${methodologyMarkdown}\n${validationMarkdown}`,
        ),
  );

  const legal = legalTexts(deps.legal);
  for (const document of LEGAL_DOCUMENTS) {
    const { path, title, description } = LEGAL_PAGES[document];
    const { body, template } = legal[document];
    const text = template
      ? markup`<p class="template" role="note">
            <strong>Template.</strong> The operator of this service has not set its own text
            (<code>${LEGAL_FILE_SETTINGS[document]}</code>): this is the template shipped with the
            software, filled from its settings. It is not legal advice and binds no one as it
            stands.
          </p>
          ${body}`
      : body;
    app.get(path, hidden, async (request, reply) =>
      reply
        .headers(pageHeaders(request))
        .send(
          page({ brand: brandOf(licenses, request.headers.host), title, description, body: text }),
        ),
    );
  }

  app.get('/data/releases', hidden, async (request, reply) =>
    reply
      .headers(pageHeaders(request))
      .send(
        releasesPage(brandOf(licenses, request.headers.host), await deps.releaseCatalog.history()),
      ),
  );
  const { sla } = deps;
  if (sla !== undefined)
    app.get('/status', hidden, async (request, reply) => {
      const doc = await sla.status.status();
      // As fresh as the JSON document it renders (cached 30 s per instance).
      return reply
        .headers(pageHeaders(request))
        .header('cache-control', 'public, max-age=30')
        .send(statusPage(brandOf(licenses, request.headers.host), doc));
    });

  // Browsers ask for /favicon.ico whatever the page says; both names answer the same icon.
  for (const path of ['/favicon.ico', '/favicon.svg'])
    app.get(path, hidden, async (_request, reply) =>
      reply
        .headers({ 'content-type': 'image/svg+xml', 'cache-control': 'public, max-age=86400' })
        .send(FAVICON_SVG),
    );

  app.get('/errors', hidden, async (request, reply) =>
    reply
      .headers(pageHeaders(request))
      .send(errorIndexPage(brandOf(licenses, request.headers.host))),
  );
  app.get<{ Params: { slug: string } }>('/errors/:slug', hidden, async (request, reply) => {
    const code = errorCodeOfSlug(request.params.slug);
    if (code === undefined)
      throw new AppError('NOT_FOUND', 'There is no such error code; /errors lists them all.');
    return reply.headers(pageHeaders(request)).send(
      errorPage({
        brand: brandOf(licenses, request.headers.host),
        code,
        meaning: meanings.get(request.params.slug),
        type: problemType(code, pagesBase(request)),
      }),
    );
  });
};

/** The public pages, registered at the root (see `site`). */
export const siteRoutes = fp(site, { name: 'site' });
