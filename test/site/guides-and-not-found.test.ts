import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { browserAvailable, launchBrowser } from '../helpers/browser.js';
import { listenHttp, type HttpCall } from '../helpers/http.js';

const DOC_NAMES = readdirSync(join(process.cwd(), 'docs'))
  .filter((file) => file.endsWith('.md'))
  .map((file) => file.slice(0, -3));
/** Documents with a page of their own. */
const OWN: Record<string, string> = {
  'quick-start': '/docs/quick-start',
  methodology: '/methodology',
};
const pathOf = (name: string) => OWN[name] ?? `/docs/guides/${name}`;
const BROWSER = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };

describe('every document of docs/ on the site, and the 404 page', () => {
  let t: TestApp;
  let call: HttpCall;
  let base: string;
  before(async () => {
    t = await buildTestApp();
    ({ call, base } = await listenHttp(t));
  });
  after(() => t.close());

  it('serves each docs/*.md as a page, linked from the documentation index', async () => {
    assert.ok(DOC_NAMES.length > 20, `only ${DOC_NAMES.length} documents found`);
    const index = await call('GET', '/docs/guides');
    assert.equal(index.status, 200);
    assert.match(String(index.headers.get('content-type')), /^text\/html/);
    for (const name of DOC_NAMES) {
      const path = pathOf(name);
      assert.ok(index.body.includes(`href="${path}"`), `the index does not link ${name}.md`);
      const res = await call('GET', path);
      assert.equal(res.status, 200, `${path}: ${res.status}`);
      assert.match(String(res.headers.get('content-type')), /^text\/html/, path);
    }
    assert.ok(!index.body.includes('/docs/guides/legal'), 'legal templates are the legal pages');
  });

  it('renders the Markdown and points links between documents at their pages', async () => {
    const res = await call('GET', '/docs/guides/formats');
    assert.match(res.body, /<h1[^>]*>Response formats<\/h1>/);
    assert.doesNotMatch(res.body, /href="[a-z-]+\.md/, 'a link still points at a .md file');
    const dashboard = await call('GET', '/docs/guides/dashboard');
    assert.match(dashboard.body, /<img src="\/docs\/guides\/dashboard-overview\.png"/);
    const image = await call('GET', '/docs/guides/dashboard-overview.png');
    assert.equal(image.status, 200);
    assert.equal(image.headers.get('content-type'), 'image/png');
  });

  it('keeps a dated CHANGELOG.md whose versions are the package’s and the bundled releases’, and serves it', async () => {
    const text = readFileSync('CHANGELOG.md', 'utf8');
    const version = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string })
      .version;
    assert.match(
      text,
      new RegExp(`^## ${version.replaceAll('.', '\\.')} — \\d{4}-\\d{2}-\\d{2}$`, 'm'),
    );
    assert.ok(text.includes(`current version is **${version}**`));
    for (const heading of text.match(/^## \d.*$/gm) ?? [])
      assert.match(heading, /^## \d+\.\d+\.\d+ — \d{4}-\d{2}-\d{2}$/, heading);
    for (const file of readdirSync('releases').filter((f) => f.endsWith('.jsonl.gz'))) {
      const head = gunzipSync(readFileSync(join('releases', file))).toString('utf8', 0, 1 << 20);
      const meta = JSON.parse(head.slice(0, head.indexOf('\n'))) as {
        version: string;
        created_at: string;
      };
      const dated = `${meta.version} (${meta.created_at.slice(0, 10)})`;
      assert.ok(text.includes(dated), `CHANGELOG.md does not name release ${dated}`);
    }
    const page = await call('GET', '/docs/changelog');
    assert.equal(page.status, 200);
    assert.ok(page.body.includes(`current version is <strong>${version}</strong>`));
    assert.match(page.body, /0\.1\.0 — 2026-11-22/);
  });

  it('links the documentation index from the navigation and footer of every page', async () => {
    for (const path of ['/', '/methodology', '/docs/guides/webhooks', '/errors']) {
      const body = (await call('GET', path)).body;
      const nav = body.slice(body.indexOf('<nav'), body.indexOf('</nav>'));
      const footer = body.slice(body.indexOf('<footer'));
      assert.ok(nav.includes('href="/docs/guides"'), `${path}: nav`);
      assert.ok(footer.includes('href="/docs/guides"'), `${path}: footer`);
    }
  });

  it('shows a browser an HTML 404 page and an API client a problem document', async () => {
    const page = await call('GET', '/no-such-page', { headers: BROWSER });
    assert.equal(page.status, 404);
    assert.match(String(page.headers.get('content-type')), /^text\/html/);
    assert.match(page.body, /Page not found/);
    assert.match(page.body, /<code>\/no-such-page<\/code>/);
    assert.match(page.body, /href="\/docs\/guides"/);

    const api = await call('GET', '/no-such-page', { headers: { accept: 'application/json' } });
    assert.equal(api.status, 404);
    assert.match(String(api.headers.get('content-type')), /^application\/problem\+json/);
    assert.equal(api.json().code, 'NOT_FOUND');
    // Both answers of the one URL tell a shared cache that they depend on Accept.
    for (const answer of [page, api]) assert.match(String(answer.headers.get('vary')), /Accept/i);
    // Accept is negotiated by preference: HTML named but liked less, or any type, or none.
    for (const accept of ['application/json, text/html;q=0.5', '*/*', 'text/html;q=0']) {
      const other = await call('GET', '/no-such-page', { headers: { accept } });
      assert.match(
        String(other.headers.get('content-type')),
        /^application\/problem\+json/,
        accept,
      );
    }
    const preferred = await call('GET', '/no-such-page', {
      headers: { accept: 'application/json;q=0.5, text/html' },
    });
    assert.match(String(preferred.headers.get('content-type')), /^text\/html/);

    // An unknown API address stays a problem document, whatever the client accepts.
    const underApi = await call('GET', '/api/v1/nothing', { headers: BROWSER });
    assert.equal(underApi.status, 404);
    assert.match(String(underApi.headers.get('content-type')), /^application\/problem\+json/);

    // Markup in the address is escaped, not rendered.
    const hostile = await call('GET', '/%3Cscript%3Ealert(1)%3C/script%3E', { headers: BROWSER });
    assert.equal(hostile.status, 404);
    assert.doesNotMatch(hostile.body, /<script>/);
  });

  it(
    'reads at 1280 and 390 px without horizontal scroll',
    { skip: !browserAvailable() && 'no chromium' },
    async () => {
      const browser = await launchBrowser();
      try {
        const shots = process.env['SHOTS_DIR'];
        if (shots !== undefined) mkdirSync(shots, { recursive: true });
        for (const width of [1280, 390]) {
          const page = await browser.newPage({ viewport: { width, height: 900 } });
          for (const path of ['/docs/guides', '/docs/guides/formats', '/no-such-page']) {
            const res = await page.goto(base + path);
            assert.equal(res?.status(), path === '/no-such-page' ? 404 : 200, path);
            const overflow = await page.evaluate(() => {
              const root = (
                globalThis as unknown as {
                  document: { documentElement: { scrollWidth: number; clientWidth: number } };
                }
              ).document.documentElement;
              return root.scrollWidth - root.clientWidth;
            });
            assert.ok(overflow <= 0, `${path} at ${width} px scrolls sideways by ${overflow} px`);
            if (shots !== undefined)
              await page.screenshot({
                path: join(shots, `pages53${path.replaceAll('/', '_')}-${width}.png`),
              });
          }
          await page.close();
        }
      } finally {
        await browser.close();
      }
    },
  );
});
