import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Brand } from './brand.js';
import { markup, type Html } from '../lib/html.js';
import { page } from './layout.js';
import { renderMarkdown } from './markdown.js';

const DOCS = new URL('../../docs/', import.meta.url);

/** Documents of docs/ that have a page of their own elsewhere on the site. */
const OWN_PAGES: Readonly<Record<string, string>> = {
  'quick-start': '/docs/quick-start',
  methodology: '/methodology',
};

/** Where the site shows a document of docs/, by its name without `.md`. */
export function guidePath(name: string): string {
  return OWN_PAGES[name] ?? `/docs/guides/${name}`;
}

export interface Guide {
  /** The file's name without `.md`. */
  name: string;
  title: string;
  path: string;
  /** The page's body; undefined for a document with a page of its own. */
  body: Html | undefined;
}

/** `foo.md#x` → the site's page of foo; `../x` (outside docs/) → unchanged; images → /docs/guides/. */
function siteAddress(address: string): string {
  if (/^[a-z]+:|^\/|^#|^\.\.\//.test(address)) return address;
  const match = /^([a-z0-9-]+)\.md(#.*)?$/.exec(address);
  if (match !== null) return `${guidePath(match[1] ?? '')}${match[2] ?? ''}`;
  return `/docs/guides/${address}`;
}

/** Every Markdown document of docs/ (not docs/legal/, whose texts are the legal pages), rendered. */
export function loadGuides(): Guide[] {
  const files = readdirSync(fileURLToPath(DOCS))
    .filter((file) => file.endsWith('.md'))
    .sort();
  return files.map((file) => {
    const name = file.slice(0, -3);
    const text = readFileSync(fileURLToPath(new URL(file, DOCS)), 'utf8');
    const title = /^# (.+)$/m.exec(text)?.[1]?.replaceAll('`', '') ?? name;
    return {
      name,
      title,
      path: guidePath(name),
      body: name in OWN_PAGES ? undefined : renderMarkdown(text, 0, siteAddress),
    };
  });
}

/** The images docs/ holds, by file name, for the documents that show them. */
export function loadGuideImages(): Map<string, Buffer> {
  const images = new Map<string, Buffer>();
  for (const file of readdirSync(fileURLToPath(DOCS)).filter((f) => f.endsWith('.png')))
    images.set(file, readFileSync(fileURLToPath(new URL(file, DOCS))));
  return images;
}

export function guidesIndexPage(brand: Brand, guides: readonly Guide[]): string {
  const body = markup`<h1>Documentation</h1>
    <p class="lead">
      Every guide to the API, its data and running it. The
      <a href="/docs">API reference</a> lists each endpoint.
    </p>
    <ul class="guides">
      ${guides.map((guide) => markup`<li><a href="${guide.path}">${guide.title}</a></li>`)}
    </ul>`;
  return page({
    brand,
    title: 'Documentation',
    description: 'Every guide: quick start, data, formats, limits, billing, webhooks, operations.',
    current: 'guides',
    body,
  });
}

export function guidePage(brand: Brand, guide: Guide & { body: Html }): string {
  return page({
    brand,
    title: guide.title,
    description: `${guide.title}: part of the documentation.`,
    current: 'guides',
    body: markup`<p class="note"><a href="/docs/guides">Documentation</a></p>
      ${guide.body}`,
  });
}
