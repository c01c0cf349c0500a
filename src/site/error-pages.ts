import {
  CONNECTION_ERRORS,
  ERROR_CODES,
  errorSlug,
  problemType,
  type ErrorCode,
} from '../errors/index.js';
import type { Brand } from './brand.js';
import { markup, type Html } from '../lib/html.js';
import { page } from './layout.js';
import { renderMarkdown } from './markdown.js';

/** The `## slug` sections of docs/errors.md (what each error means), rendered. */
export function errorMeanings(markdown: string): Map<string, Html> {
  const meanings = new Map<string, Html>();
  for (const part of markdown.split(/^## /m).slice(1)) {
    const end = part.indexOf('\n');
    meanings.set(part.slice(0, end).trim(), renderMarkdown(part.slice(end + 1)));
  }
  return meanings;
}

const CODES = Object.keys(ERROR_CODES) as ErrorCode[];

export function errorIndexPage(brand: Brand): string {
  const rows = [...CODES].sort((a, b) => ERROR_CODES[a].status - ERROR_CODES[b].status);
  const body = markup` <h1>Error codes</h1>
    <p class="lead">
      Every error is an RFC 9457 problem document (<code>application/problem+json</code>). Its
      <code>type</code> is the address of the page explaining it; its <code>code</code> is the same
      kind as a constant to match on.
    </p>
    <table>
      <thead>
        <tr>
          <th scope="col" class="num">Status</th>
          <th scope="col">Code</th>
          <th scope="col">Title</th>
        </tr>
      </thead>
      <tbody>
        ${rows.map(
          (code) =>
            markup`<tr>
              <td class="num">${ERROR_CODES[code].status}</td>
              <td>
                <a href="/errors/${errorSlug(code)}"><code>${code}</code></a>
              </td>
              <td>${ERROR_CODES[code].title}</td>
            </tr>`,
        )}
      </tbody>
    </table>`;
  return page({
    brand,
    title: 'Error codes',
    description: 'Every error the API answers, with what it means and what to do.',
    current: 'errors',
    body,
  });
}

export function errorPage(input: {
  brand: Brand;
  code: ErrorCode;
  meaning: Html | undefined;
  type: string;
}): string {
  const { code } = input;
  const entry = ERROR_CODES[code];
  // Answered on the connection, before any request: a path for type, no instance or request id.
  const onConnection = CONNECTION_ERRORS.has(code);
  const type = onConnection ? problemType(code, '') : input.type;
  const example = {
    type,
    title: entry.title,
    status: entry.status,
    detail: '…',
    ...(onConnection ? {} : { instance: '/api/v1/…' }),
    code,
    ...(onConnection ? {} : { request_id: 'req_…' }),
  };
  const body = markup` <p class="note"><a href="/errors">Error codes</a> › ${code}</p>
    <h1>${entry.title}</h1>
    <dl class="facts">
      <dt>HTTP status</dt>
      <dd>${entry.status}</dd>
      <dt>Code</dt>
      <dd><code>${code}</code></dd>
      <dt>Type</dt>
      <dd><code>${type}</code></dd>
    </dl>
    <h2>What it means</h2>
    ${input.meaning ?? markup`<p>${entry.title}.</p>`}
    <h2>What to do</h2>
    <p>${entry.action}</p>
    <h2>Example</h2>
    <pre tabindex="0"><code>${JSON.stringify(example, null, 2)}</code></pre>
    ${
      onConnection
        ? markup`<p class="note">
            The connection is closed after this answer; the request was never read, so it has no
            request id.
          </p>`
        : markup`<p class="note">
            Quote the <code>request_id</code> (also the <code>X-Request-Id</code> header) when you
            write to support.
          </p>`
    }`;
  return page({
    brand: input.brand,
    title: `${entry.title} (${code})`,
    description: `${code}: what the error means and what to do.`,
    current: 'errors',
    body,
  });
}

/** The page a browser is shown for an address the site does not have. */
export function notFoundPage(brand: Brand, path: string): string {
  const body = markup`<h1>Page not found</h1>
    <p class="lead">There is no page at <code>${path}</code>.</p>
    <p>These may be what you were looking for:</p>
    <ul>
      <li><a href="/">The front page</a>, with the plans and an example answer</li>
      <li><a href="/docs/guides">The documentation</a> and the <a href="/docs">API reference</a></li>
      <li><a href="/dashboard">Your dashboard</a></li>
    </ul>`;
  return page({
    brand,
    title: 'Page not found',
    description: 'There is no page at this address.',
    body,
  });
}
