import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  reviewCsv,
  reviewPeriod,
  reviewReport,
  type AccessReview,
  type PublicDocument,
} from '../compliance/index.js';
import { type DashboardPlanFeatures, type DashboardTools, signedIn } from './context.js';
import {
  act,
  answeredNotInPlan,
  type FieldLabel,
  FormState,
  Problems,
  submit,
  text,
} from './forms.js';
import { markup, type Html } from '../lib/html.js';
import { csrfField } from './session.js';
import { BASE, bytes, day, page, time, type Flash } from './layout.js';

const PATH = '/compliance';
const TITLE = 'Compliance';
const DAY_MS = 86_400_000;

type Compliance = NonNullable<DashboardPlanFeatures['compliance']>;

function documentsTable(docs: PublicDocument[]): Html {
  if (docs.length === 0)
    return markup`<p>No documents are published to this account yet; they appear here when the operator adds them.</p>`;
  return markup`<div class="table-wrap">
    <table id="documents" class="cards-on-phone">
      <thead>
        <tr>
          <th scope="col">Document</th>
          <th scope="col">Version</th>
          <th scope="col">Period covered</th>
          <th scope="col" class="num">Pages</th>
          <th scope="col" class="num">Size</th>
          <th scope="col">Published</th>
          <th scope="col">Copy</th>
        </tr>
      </thead>
      <tbody>
        ${docs.map(
          (d) => markup`<tr>
            <td data-label="Document">
              ${d.title}${d.description === null ? '' : markup`<br /><span class="muted">${d.description}</span>`}
            </td>
            <td data-label="Version">${d.version}${d.current ? ' (current)' : ' (superseded)'}</td>
            <td data-label="Period covered">${day(d.period_start)} to ${day(d.period_end)}</td>
            <td data-label="Pages" class="num">${d.page_count}</td>
            <td data-label="Size" class="num">${bytes(d.size_bytes)}</td>
            <td data-label="Published">${time(d.added_at)}</td>
            <td data-label="Copy">
              <a href="${BASE}/compliance/documents/${d.id}" download
                >Download the stamped PDF<span class="sr-only">: ${d.title}, version ${d.version}</span></a
              >
            </td>
          </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

const REVIEW: Record<string, FieldLabel> = {
  from: { id: 'review-from', label: 'From' },
  to: { id: 'review-to', label: 'To' },
  format: { id: 'review-format', label: 'As' },
};
const FORMATS = [
  ['html', 'a page here'],
  ['pdf', 'a PDF for the auditor'],
  ['csv', 'CSV for a spreadsheet'],
] as const;

function reviewForm(csrf: string, now: number, form: FormState): Html {
  const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const date = markup`maxlength="40" pattern="\\d{4}-\\d{2}-\\d{2}"`;
  const format = form.value('format', 'html');
  return markup`<form method="post" action="${BASE}/compliance/access-review" class="stack" id="review-form">
    ${form.summary(REVIEW, 'No review made')}
    ${csrfField(csrf)}
    ${form.field('from', REVIEW['from']!, {
      value: iso(now - 90 * DAY_MS),
      hint: 'YYYY-MM-DD, inclusive.',
      attrs: date,
    })}
    ${form.field('to', REVIEW['to']!, {
      hint: 'YYYY-MM-DD, exclusive; empty: now.',
      attrs: markup`${date} placeholder="${iso(now)}"`,
    })}
    <fieldset id="${REVIEW['format']!.id}" ${form.marks('format', REVIEW['format']!.id)}>
      <legend>${REVIEW['format']!.label}</legend>
      ${form.note('format', REVIEW['format']!.id)}
      ${FORMATS.map(([value, label]) => markup`<label><input type="radio" name="format" value="${value}" ${format === value ? markup`checked` : ''} /> ${label}</label>`)}
    </fieldset>
    <button type="submit">Generate the review</button>
  </form>`;
}

function reviewBlock(r: AccessReview): Html {
  const v = r.audit_log.verification;
  return markup`<section class="card" aria-labelledby="review-title" id="review">
    <h2 id="review-title">Access review ${r.id}</h2>
    <p>
      ${time(r.period.from)} to ${time(r.period.to)}, generated ${time(r.generated_at)}. Audit
      log: ${r.audit_log.entries_in_period} entries of this account in the period; hash chain
      <strong>${v.valid ? 'verified' : 'BROKEN'}</strong> over ${v.entries_checked} entries.
    </p>
    <div class="table-wrap">
      <table>
        <caption class="muted">Credentials during the period</caption>
        <thead>
          <tr>
            <th scope="col">Kind</th>
            <th scope="col">Name</th>
            <th scope="col">Status</th>
            <th scope="col">Scopes</th>
            <th scope="col">Allowlist</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
          </tr>
        </thead>
        <tbody>
          ${r.api_keys.length + r.oauth_clients.length === 0 ? markup`<tr><td colspan="7">None.</td></tr>` : ''}
          ${r.api_keys.map(
            (k) => markup`<tr>
              <td>API key <code>${k.prefix}…</code></td>
              <td>${k.name}</td>
              <td>${k.status}</td>
              <td>${k.scopes === null ? 'all' : k.scopes.join(', ')}</td>
              <td>${k.allowlist.length === 0 ? 'any' : k.allowlist.join(', ')}</td>
              <td>${time(k.created_at)}</td>
              <td>${time(k.last_used_at, 'never')}</td>
            </tr>`,
          )}
          ${r.oauth_clients.map(
            (c) => markup`<tr>
              <td>OAuth client <code>${c.id}</code></td>
              <td>${c.name}</td>
              <td>${c.status}</td>
              <td>${c.scopes.join(', ')}</td>
              <td>${c.allowlist.length === 0 ? 'any' : c.allowlist.join(', ')}</td>
              <td>${time(c.created_at)}</td>
              <td>${time(c.last_used_at, 'never')}</td>
            </tr>`,
          )}
        </tbody>
      </table>
    </div>
    <p>
      Dashboard sessions: ${r.sessions.length}. Data leaves to webhook endpoints:
      ${r.webhook_endpoints.length}; export destinations: ${r.export_destinations.length}.
    </p>
  </section>`;
}

/** /dashboard/compliance…: the documents (stamped PDF copies) and the access review (Enterprise). */
export function compliancePages(app: FastifyInstance, tools: DashboardTools): void {
  const { deps } = tools;
  const compliance = (): Compliance => deps.planFeatures.compliance as Compliance;
  const gate = (request: FastifyRequest, reply: FastifyReply) =>
    answeredNotInPlan(request, reply, tools, {
      path: PATH,
      title: TITLE,
      has:
        deps.planFeatures.compliance !== undefined &&
        signedIn(request).principal.plan.complianceReports,
    });

  async function render(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    extra: { flash?: Flash; review?: AccessReview; form?: FormState } = {},
  ) {
    const { principal, page: ctx } = signedIn(request);
    const docs = await compliance().documents.list(principal);
    const content = markup`<h2>Documents</h2>
      <p>
        Every download is a new copy stamped on each page with this account and the copy’s id,
        and is recorded in the <a href="${BASE}/account">audit log</a>.
      </p>
      ${documentsTable(docs)}
      <h2>User access review</h2>
      <p>
        Every API key and OAuth client of the account during a period, with what it may do,
        from where, and when it was last used; sessions; where data is sent; and whether the
        audit log verifies. At most 366 days.
      </p>
      ${reviewForm(ctx.csrf, deps.clock.now(), extra.form ?? FormState.EMPTY)}
      ${extra.review === undefined ? '' : reviewBlock(extra.review)}`;
    return tools.send(reply, status, page(ctx, PATH, TITLE, content, extra.flash));
  }

  const failed = (request: FastifyRequest, reply: FastifyReply) => (status: number, flash: Flash) =>
    render(request, reply, status, { flash });

  /** A large file made for the account, within the download gate's bounds. */
  async function bounded<T>(request: FastifyRequest, make: () => Promise<T>): Promise<T> {
    const leave = await app.downloads.enter(signedIn(request).principal.limitBucket);
    try {
      return await make();
    } finally {
      leave();
    }
  }

  app.get('/dashboard/compliance', async (request, reply) => {
    if (gate(request, reply)) return reply;
    return render(request, reply, 200);
  });

  app.get('/dashboard/compliance/documents/:id', async (request, reply) => {
    if (gate(request, reply)) return reply;
    const id = (request.params as { id: string }).id.slice(0, 64);
    return act(request, reply, failed(request, reply), async () => {
      const copy = await bounded(request, () =>
        compliance().documents.download(signedIn(request).principal, id, request.ip),
      );
      return reply
        .header('content-type', 'application/pdf')
        .header('content-disposition', `attachment; filename="${copy.fileName}"`)
        .header('cache-control', 'no-store')
        .header('x-copy-id', copy.downloadId)
        .send(copy.bytes);
    });
  });

  app.post('/dashboard/compliance/access-review', async (request, reply) => {
    if (gate(request, reply)) return reply;
    return submit(
      request,
      reply,
      {
        refused: (status, form) => render(request, reply, status, { form }),
        failed: failed(request, reply),
        fields: Object.keys(REVIEW),
      },
      async () => {
        const format = text(request.body, 'format');
        const from = text(request.body, 'from') || undefined;
        const to = text(request.body, 'to') || undefined;
        // Each date checked as the service checks it, so that two wrong dates are both named.
        const now = new Date(deps.clock.now());
        const toProblems = new Problems().of(
          () => to !== undefined && reviewPeriod(now, undefined, to),
        );
        const problems = new Problems()
          .of(() => reviewPeriod(now, from, toProblems.list.length === 0 ? to : undefined))
          .addAll(toProblems.list);
        if (!FORMATS.some(([value]) => value === format))
          problems.add('format', `must be one of ${FORMATS.map(([value]) => value).join(', ')}`);
        problems.throwAny();
        const review = await compliance().reviews.generate(
          signedIn(request).principal,
          { from, to, format: format === 'pdf' || format === 'csv' ? format : 'json' },
          request.ip,
        );
        if (format !== 'pdf' && format !== 'csv') return render(request, reply, 200, { review });
        const name = `access-review-${review.period.to.slice(0, 10)}-${review.id}.${format}`;
        reply
          .header('cache-control', 'no-store')
          .header('content-disposition', `attachment; filename="${name}"`);
        if (format === 'csv')
          return reply.header('content-type', 'text/csv; charset=utf-8').send(reviewCsv(review));
        const pdf = await bounded(request, () => compliance().pdf.report(reviewReport(review)));
        return reply.header('content-type', 'application/pdf').send(pdf);
      },
    );
  });
}
