import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { COUNTRIES, JOBS, LEVELS } from '../catalog/index.js';
import {
  CustomEndpointDescriptionSchema,
  CustomEndpointSlugSchema,
  MAX_CUSTOM_ENDPOINTS,
  PARAMETER_NAMES,
  type CustomEndpointService,
  type CustomEndpointView,
  type CustomQuery,
} from '../custom-endpoints/index.js';
import type { Plan } from '../plans/index.js';
import { type DashboardTools, signedIn } from './context.js';
import {
  act,
  answeredNotInPlan,
  button,
  doneFlash,
  FormState,
  invalid,
  lengthAttributes,
  lengthProblem,
  submit,
  text,
  values,
  words,
  type Body,
} from './forms.js';
import { markup, type Html } from '../lib/html.js';
import { csrfField } from './session.js';
import { BASE, page, time, type Flash } from './layout.js';

const PATH = '/custom-endpoints';
const TITLE = 'Custom endpoints';
const YEARS = ['current', 'last 1', 'last 3', 'last 5', 'all'] as const;
const SLUG = /^[a-z0-9]+(-[a-z0-9]+)*$/;
/** The most of an answer the "try it" panel shows. */
const SHOWN_CHARS = 6000;
const DONE: Record<string, string> = { deleted: 'The custom endpoint was deleted.' };
/** The form's examples: jobs and countries of the catalogue. */
const EXAMPLE_JOBS = JOBS.filter((j) => j.slug.endsWith('-engineer'))
  .slice(0, 2)
  .map((j) => j.slug);
const EXAMPLE_COUNTRIES = COUNTRIES.filter((c) => ['DK', 'FI', 'SE'].includes(c.code)).map(
  (c) => c.code,
);
const LABELS = {
  slug: { id: 'ce-slug', label: 'Name in the path' },
  description: { id: 'ce-description', label: 'Description' },
  countries: { id: 'ce-countries', label: 'Countries' },
  jobs: { id: 'ce-jobs', label: 'Job categories' },
  levels: { id: 'ce-levels', label: 'Levels' },
  years: { id: 'ce-years', label: 'Years' },
  fields: { id: 'ce-fields', label: 'Extra fields' },
  format: { id: 'ce-format', label: 'Format' },
  parameters: { id: 'ce-parameters', label: 'Parameters' },
};

function queryText(q: CustomQuery): string {
  const years =
    typeof q.years === 'object' ? `${q.years.from}–${q.years.to}` : (q.years ?? 'current');
  return [
    `countries: ${q.countries?.join(', ') ?? 'all'}`,
    `jobs: ${q.jobs?.join(', ') ?? 'all'}`,
    `levels: ${q.levels?.join(', ') ?? 'all'}`,
    `years: ${years}`,
    ...(q.fields === undefined || q.fields.length === 0 ? [] : [`fields: ${q.fields.join(', ')}`]),
    `format: ${q.format ?? 'json'}`,
  ].join('; ');
}

function pretty(json: string): string {
  try {
    return JSON.stringify(JSON.parse(json), null, 2);
  } catch {
    return json;
  }
}

const shorter = (body: string): string =>
  body.length <= SHOWN_CHARS
    ? body
    : `${body.slice(0, SHOWN_CHARS)}\n… (${body.length - SHOWN_CHARS} more characters)`;

function createForm(plan: Plan, csrf: string, full: boolean, form: FormState): Html {
  const off = full ? markup`disabled` : '';
  const at = (name: keyof typeof LABELS, hint?: string) => form.marks(name, LABELS[name].id, hint);
  const note = (name: keyof typeof LABELS) => form.note(name, LABELS[name].id);
  const v = (name: string) => form.value(name);
  return markup`${full ? markup`<p class="reason" id="endpoints-full">An account has at most ${MAX_CUSTOM_ENDPOINTS} custom endpoints: delete one to create another.</p>` : ''}
    <form method="post" action="${BASE}/custom-endpoints" class="stack">
      ${form.summary(LABELS)}
      ${csrfField(csrf)}
      <label for="ce-slug">Name in the path (lower-case words joined by hyphens)</label>
      <input id="ce-slug" name="slug" ${lengthAttributes(CustomEndpointSlugSchema)} placeholder="nordic-engineers" value="${v('slug')}" ${at('slug', 'ce-slug-hint')} ${off} />
      ${note('slug')}
      <p id="ce-slug-hint" class="hint">Served at /api/v1/custom/<em>name</em> for this account’s credentials.</p>
      <label for="ce-description">Description (optional)</label>
      <input id="ce-description" name="description" ${lengthAttributes(CustomEndpointDescriptionSchema)} value="${v('description')}" ${at('description')} ${off} />
      ${note('description')}
      <label for="ce-countries">Countries (ISO codes, comma-separated; empty: all ${COUNTRIES.length})</label>
      <input id="ce-countries" name="countries" maxlength="200" placeholder="${EXAMPLE_COUNTRIES.join(', ')}" value="${v('countries')}" ${at('countries')} ${off} />
      ${note('countries')}
      <label for="ce-jobs">Job categories (slugs, comma-separated; empty: all)</label>
      <input id="ce-jobs" name="jobs" maxlength="2000" placeholder="${EXAMPLE_JOBS.join(', ')}" value="${v('jobs')}" ${at('jobs')} ${off} />
      ${note('jobs')}
      <fieldset class="choices" id="ce-levels">
        <legend>Levels (none ticked: all)</legend>
        ${note('levels')}
        ${LEVELS.map((l) => markup`<label><input type="checkbox" name="levels" value="${l}" ${form.chosen('levels', l) ? markup`checked` : ''} ${off} /> ${l}</label>`)}
      </fieldset>
      <label for="ce-years">Years</label>
      <select id="ce-years" name="years" ${at('years')} ${off}>
        ${YEARS.map((y) => markup`<option value="${y}" ${v('years') === y ? markup`selected` : ''}>${y}</option>`)}
      </select>
      ${note('years')}
      <label for="ce-fields">Extra fields (comma-separated, optional)</label>
      <input id="ce-fields" name="fields" maxlength="500" value="${v('fields')}" ${at('fields')} ${off} />
      ${note('fields')}
      <label for="ce-format">Format</label>
      <select id="ce-format" name="format" ${at('format')} ${off}>
        ${plan.formats.map((f) => markup`<option value="${f}" ${v('format') === f ? markup`selected` : ''}>${f}</option>`)}
      </select>
      ${note('format')}
      <fieldset class="choices" id="ce-parameters">
        <legend>Parameters a caller may pass, each narrowing the saved values</legend>
        ${note('parameters')}
        ${PARAMETER_NAMES.map((p) => markup`<label><input type="checkbox" name="parameters" value="${p}" ${form.chosen('parameters', p) ? markup`checked` : ''} ${off} /> ${p}</label>`)}
      </fieldset>
      <button type="submit" ${off}>Create the endpoint</button>
    </form>`;
}

function queryOf(body: Body, problems: { name: string; reason: string }[]): CustomQuery {
  const years = text(body, 'years');
  if (!(YEARS as readonly string[]).includes(years))
    problems.push({ name: 'years', reason: `must be one of ${YEARS.join(', ')}` });
  const levels = values(body, 'levels');
  if (levels.some((l) => !(LEVELS as readonly string[]).includes(l)))
    problems.push({ name: 'levels', reason: `must be among ${LEVELS.join(', ')}` });
  const countries = words(text(body, 'countries'));
  if (countries.some((c) => !/^[A-Za-z]{2}$/.test(c)))
    problems.push({ name: 'countries', reason: 'must be two-letter codes' });
  const jobs = words(text(body, 'jobs'));
  if (jobs.some((j) => !SLUG.test(j) || j.length > 64))
    problems.push({ name: 'jobs', reason: 'must be job slugs such as software-engineer' });
  const fields = words(text(body, 'fields'));
  const unique = (list: string[]) => [...new Set(list)];
  return {
    ...(countries.length === 0 ? {} : { countries: unique(countries) }),
    ...(jobs.length === 0 ? {} : { jobs: unique(jobs) }),
    ...(levels.length === 0 ? {} : { levels: unique(levels) as CustomQuery['levels'] }),
    years,
    ...(fields.length === 0 ? {} : { fields: unique(fields) }),
    format: text(body, 'format') as CustomQuery['format'],
  };
}

/** A "try it" field: a choice among the saved values where they are a short list. */
function parameterField(
  p: (typeof PARAMETER_NAMES)[number],
  q: CustomQuery,
  plan: Plan,
  value: string,
): Html {
  const choices =
    p === 'country'
      ? (q.countries ?? null)
      : p === 'level'
        ? (q.levels ?? LEVELS)
        : p === 'format'
          ? plan.formats
          : p === 'job'
            ? (q.jobs ?? null)
            : null;
  const label = markup`<label for="try-${p}">${p} (optional)</label>`;
  if (choices === null)
    return markup`${label}<input id="try-${p}" name="${p}" maxlength="64" value="${value}" />`;
  return markup`${label}<select id="try-${p}" name="${p}">
      <option value="">— every saved value —</option>
      ${choices.map((c) => markup`<option value="${c}" ${c === value ? markup`selected` : ''}>${c}</option>`)}
    </select>`;
}

/** /dashboard/custom-endpoints…: create from a form, try one, its OpenAPI document (Enterprise). */
export function customEndpointPages(app: FastifyInstance, tools: DashboardTools): void {
  const { deps } = tools;
  const service = (): CustomEndpointService =>
    deps.planFeatures.customEndpoints as CustomEndpointService;
  const gate = (request: FastifyRequest, reply: FastifyReply) =>
    answeredNotInPlan(request, reply, tools, {
      path: PATH,
      title: TITLE,
      has:
        deps.planFeatures.customEndpoints !== undefined &&
        signedIn(request).principal.plan.customEndpoints,
    });

  /**
   * A request to the API as the signed-in account (its session is a credential there): the
   * answer is what a client of the account gets, counted in its quota and usage.
   */
  const asAccount = (request: FastifyRequest, url: string) =>
    app.inject({
      method: 'GET',
      url,
      remoteAddress: request.ip,
      headers: { authorization: `Bearer ${signedIn(request).token}` },
    });

  async function render(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    extra: { flash?: Flash; form?: FormState } = {},
  ) {
    const { principal, page: ctx } = signedIn(request);
    const endpoints = service().list(principal);
    const content = markup`<p id="endpoint-count">
        ${endpoints.length} of ${MAX_CUSTOM_ENDPOINTS} custom endpoints. Their
        <a href="${BASE}/custom-endpoints/openapi.json">OpenAPI document</a> describes each with
        its parameters and fields, for a code generator.
      </p>
      ${
        endpoints.length === 0
          ? markup`<p>No custom endpoints yet.</p>`
          : markup`<div class="table-wrap">
              <table id="custom-endpoints" class="cards-on-phone">
                <thead>
                  <tr>
                    <th scope="col">Path</th>
                    <th scope="col">Saved query</th>
                    <th scope="col">Parameters</th>
                    <th scope="col">Created</th>
                    <th scope="col">Actions</th>
                  </tr>
                </thead>
                <tbody>
                  ${endpoints.map(
                    (e) => markup`<tr>
                      <td data-label="Path" class="path">
                        <a href="${BASE}/custom-endpoints/${e.id}"><code>${e.path}</code></a>
                        ${e.description === '' ? '' : markup`<br /><span class="muted">${e.description}</span>`}
                      </td>
                      <td data-label="Saved query">${queryText(e.query)}</td>
                      <td data-label="Parameters">${e.parameters.length === 0 ? 'none' : e.parameters.join(', ')}</td>
                      <td data-label="Created">${time(e.created_at)}</td>
                      <td data-label="Actions">
                        <a href="${BASE}/custom-endpoints/${e.id}">Try it<span class="sr-only"> ${e.slug}</span></a>
                        ${button(`${BASE}/custom-endpoints/${e.id}/delete`, 'Delete', ctx.csrf, {
                          kind: 'danger',
                          confirm: 'Delete this endpoint? Callers get 404 from now on.',
                          name: e.slug,
                        })}
                      </td>
                    </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
      }
      <h2>Create a custom endpoint</h2>
      ${createForm(principal.plan, ctx.csrf, endpoints.length >= MAX_CUSTOM_ENDPOINTS, extra.form ?? FormState.EMPTY)}`;
    return tools.send(reply, status, page(ctx, PATH, TITLE, content, extra.flash));
  }

  async function detail(
    request: FastifyRequest,
    reply: FastifyReply,
    e: CustomEndpointView,
    status: number,
    tried?: { url: string; status: number; type: string; body: string },
  ) {
    const { page: ctx, principal } = signedIn(request);
    const plan = principal.plan;
    const given = (request.body ?? {}) as Body;
    const content = markup`<p><a href="${BASE}/custom-endpoints">All custom endpoints</a></p>
      <p><code>GET ${e.path}</code>${e.description === '' ? '' : ` — ${e.description}`}</p>
      <p>${queryText(e.query)}. Created ${time(e.created_at)}, changed ${time(e.updated_at)}.</p>
      <p>
        Its parameters and fields are in the account’s
        <a href="${BASE}/custom-endpoints/openapi.json">OpenAPI document</a>.
      </p>
      <h2>Try it</h2>
      <p>
        The request is made as this account and counts in its quota and usage like any other.
      </p>
      <form method="post" action="${BASE}/custom-endpoints/${e.id}/try" class="stack">
        ${csrfField(ctx.csrf)}
        ${
          e.parameters.length === 0
            ? markup`<p class="muted">This endpoint takes no parameters.</p>`
            : e.parameters.map((p) => parameterField(p, e.query, plan, text(given, p)))
        }
        <button type="submit">Send the request</button>
      </form>
      ${
        tried === undefined
          ? ''
          : markup`<h3>Answer</h3>
              <p id="try-status">
                <code>GET ${tried.url}</code>: HTTP ${tried.status}, ${tried.type}
              </p>
              <pre class="code" id="try-body" tabindex="0">${tried.body}</pre>`
      }`;
    return tools.send(reply, status, page(ctx, PATH, e.slug, content));
  }

  const idOf = (request: FastifyRequest) => (request.params as { id: string }).id.slice(0, 64);
  const failed = (request: FastifyRequest, reply: FastifyReply) => (status: number, flash: Flash) =>
    render(request, reply, status, { flash });

  app.get('/dashboard/custom-endpoints', async (request, reply) => {
    if (gate(request, reply)) return reply;
    const flash = doneFlash(request, DONE);
    return render(request, reply, 200, flash === undefined ? {} : { flash });
  });

  app.post('/dashboard/custom-endpoints', async (request, reply) => {
    if (gate(request, reply)) return reply;
    const handlers = {
      refused: (status: number, form: FormState) => render(request, reply, status, { form }),
      failed: failed(request, reply),
    };
    return submit(request, reply, handlers, async () => {
      const body = (request.body ?? {}) as Body;
      const problems: { name: string; reason: string }[] = [];
      const slug = text(body, 'slug');
      const slugProblem = lengthProblem(slug, CustomEndpointSlugSchema);
      if (slugProblem !== '') problems.push({ name: 'slug', reason: slugProblem });
      else if (!SLUG.test(slug))
        problems.push({
          name: 'slug',
          reason: 'must be lower-case letters and digits in hyphen-separated words',
        });
      const description = text(body, 'description');
      const descriptionProblem = lengthProblem(description, CustomEndpointDescriptionSchema);
      if (descriptionProblem !== '')
        problems.push({ name: 'description', reason: descriptionProblem });
      const query = queryOf(body, problems);
      if (problems.length > 0) throw invalid(...problems);
      const parameters = values(body, 'parameters').filter((p) =>
        (PARAMETER_NAMES as readonly string[]).includes(p),
      ) as (typeof PARAMETER_NAMES)[number][];
      const created = await service().create(
        signedIn(request).principal,
        { slug, description, query, parameters },
        request.ip,
      );
      return tools.redirect(reply, `/custom-endpoints/${created.id}`);
    });
  });

  // Before /:id, which would take "openapi.json" for an id.
  app.get('/dashboard/custom-endpoints/openapi.json', async (request, reply) => {
    if (gate(request, reply)) return reply;
    const answer = await asAccount(request, '/api/v1/custom/openapi.json');
    return reply
      .code(answer.statusCode)
      .header('cache-control', 'no-store')
      .type(String(answer.headers['content-type'] ?? 'application/json'))
      .send(answer.body);
  });

  app.get('/dashboard/custom-endpoints/:id', async (request, reply) => {
    if (gate(request, reply)) return reply;
    return act(request, reply, failed(request, reply), async () =>
      detail(request, reply, service().get(signedIn(request).principal, idOf(request)), 200),
    );
  });

  app.post('/dashboard/custom-endpoints/:id/try', async (request, reply) => {
    if (gate(request, reply)) return reply;
    return act(request, reply, failed(request, reply), async () => {
      const e = service().get(signedIn(request).principal, idOf(request));
      const query = new URLSearchParams();
      for (const p of e.parameters) {
        const value = text(request.body, p).slice(0, 64);
        if (value !== '') query.set(p, value);
      }
      const url = `${e.path}${query.size === 0 ? '' : `?${query.toString()}`}`;
      const answer = await asAccount(request, url);
      const type = String(answer.headers['content-type'] ?? '');
      const body = /json|csv|xml|text/.test(type)
        ? shorter(/json/.test(type) ? pretty(answer.body) : answer.body)
        : `${answer.rawPayload.length} bytes of ${type} (a binary format: fetch it with a client).`;
      return detail(request, reply, e, 200, { url, status: answer.statusCode, type, body });
    });
  });

  app.post('/dashboard/custom-endpoints/:id/delete', async (request, reply) => {
    if (gate(request, reply)) return reply;
    return act(request, reply, failed(request, reply), async () => {
      await service().remove(signedIn(request).principal, idOf(request), request.ip);
      return tools.redirect(reply, '/custom-endpoints?done=deleted');
    });
  });
}
