import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { EVENT_TYPES, WebhookUrlSchema, type PublicEndpoint } from '../webhooks/index.js';
import { flashOf, type DashboardTools, signedIn } from './context.js';
import { markup, type Html } from '../lib/html.js';
import { csrfField } from './session.js';
import {
  type FieldLabel,
  FormState,
  invalid,
  lengthAttributes,
  lengthProblem,
  submit,
  text,
  values,
} from './forms.js';
import { BASE, notInPlan, page, time, type Flash } from './layout.js';

const LABELS: Record<string, FieldLabel> = {
  url: { id: 'wh-url', label: 'HTTPS URL' },
  events: { id: 'wh-events', label: 'Events' },
};

const DONE: Record<string, string> = {
  redelivered: 'A new delivery of the event is queued.',
  deleted: 'The endpoint was deleted.',
};

type Deliveries = Awaited<ReturnType<DashboardTools['deps']['webhooks']['deliveries']>>;

function secretBlock(secret: string, what: string): Html {
  return markup`<section class="card" aria-labelledby="wh-secret-title">
    <h2 id="wh-secret-title">${what}</h2>
    <p class="warn">Copy the signing secret now: it is shown only once.</p>
    <label for="wh-secret">Signing secret</label>
    <input id="wh-secret" class="secret" readonly value="${secret}" />
    <button type="button" data-copy="wh-secret" hidden>Copy the secret</button>
    <span id="wh-secret-status" role="status"></span>
  </section>`;
}

function endpointBlock(e: PublicEndpoint, deliveries: Deliveries, csrf: string): Html {
  const form = (action: string, label: string, cls = 'secondary', extra: Html = markup``) =>
    markup`<form method="post" action="${BASE}/webhooks/${e.id}/${action}" class="inline">
      ${csrfField(csrf)}${extra}<button
        type="submit"
        class="${cls}"
      >
        ${label}
      </button>
    </form> `;
  return markup`<section class="card" aria-labelledby="wh-${e.id}">
    <h3 id="wh-${e.id}"><code>${e.url}</code></h3>
    <p>
      Events: ${e.events.join(', ')} ·
      ${e.status}${e.disabled_reason === null ? '' : markup` (${e.disabled_reason})`}${e.failing_since === null ? '' : markup` · <span class="warn">failing since ${time(e.failing_since)}</span>`}
    </p>
    <p>
      ${form('test', 'Send a test event')}${form('rotate-secret', 'Rotate the secret')}${form('delete', 'Delete', 'danger')}
    </p>
    ${
      deliveries.length === 0
        ? markup`<p class="muted">No deliveries yet.</p>`
        : markup`<div class="table-wrap">
            <table>
              <caption class="muted">
                Recent deliveries
              </caption>
              <thead>
                <tr>
                  <th scope="col">Event</th>
                  <th scope="col">Created</th>
                  <th scope="col">Status</th>
                  <th scope="col">Attempts</th>
                  <th scope="col">Response</th>
                  <th scope="col">Action</th>
                </tr>
              </thead>
              <tbody>
                ${deliveries.map(
                  (d) =>
                    markup`<tr>
                      <td>${d.event_type}</td>
                      <td>${time(d.created_at)}</td>
                      <td>
                        ${d.status}${d.status === 'pending' && d.next_attempt_at !== null ? markup`, next ${time(d.next_attempt_at)}` : ''}
                      </td>
                      <td>${d.attempts}</td>
                      <td>${d.last_status_code ?? ''} ${d.last_error ?? ''}</td>
                      <td>${form(`deliveries/${d.id}/redeliver`, 'Redeliver')}</td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
    }
  </section>`;
}

/** GET/POST /dashboard/webhooks…: endpoints, deliveries, test, redeliver, rotate (Business+). */
export function webhookPages(app: FastifyInstance, tools: DashboardTools): void {
  const { deps } = tools;

  async function render(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    extra: { flash?: Flash; top?: Html; form?: FormState } = {},
  ) {
    const { principal, page: ctx } = signedIn(request);
    const form = extra.form ?? FormState.EMPTY;
    if (!principal.plan.webhooks)
      return tools.send(
        reply,
        status === 200 ? 200 : 403,
        page(
          ctx,
          '/webhooks',
          'Webhooks',
          notInPlan(deps.plans, '/webhooks', principal.plan),
          extra.flash,
        ),
      );
    const endpoints = await deps.webhooks.list(principal);
    const limit = principal.plan.maxWebhookEndpoints;
    const full = endpoints.length >= limit;
    const blocks = await Promise.all(
      endpoints.map(async (e) =>
        endpointBlock(e, await deps.webhooks.deliveries(principal, e.id, 10), ctx.csrf),
      ),
    );
    const content = markup`${extra.top ?? ''}
      ${blocks.length === 0 ? markup`<p>No endpoints yet.</p>` : blocks}
      <h2>Add an endpoint</h2>
      <form method="post" action="${BASE}/webhooks" class="stack">
        ${form.summary(LABELS)}
        ${csrfField(ctx.csrf)}
        <label for="wh-url">HTTPS URL</label>
        <input
          id="wh-url"
          name="url"
          type="url"
          ${lengthAttributes(WebhookUrlSchema)}
          placeholder="https://hooks.example.com/salary"
          value="${form.value('url')}"
          ${form.marks('url', 'wh-url')}
        />
        ${form.note('url', 'wh-url')}
        <fieldset id="wh-events" ${form.marks('events', 'wh-events')}>
          <legend>Events</legend>
          ${form.note('events', 'wh-events')}
          ${EVENT_TYPES.map((t, i) => markup`<label class="check"><input type="checkbox" name="events" value="${t}" ${form.chosen('events', t, i === 0) ? markup` checked` : ''} /> ${t}</label>`)}
        </fieldset>
        <button type="submit" ${full ? markup`disabled aria-describedby="wh-full"` : ''}>
          Add endpoint
        </button>
        ${full ? markup`<p id="wh-full" class="reason">The ${principal.plan.name} plan has at most ${limit} endpoints, and all are in use: delete one to add another.</p>` : ''}
      </form>`;
    return tools.send(reply, status, page(ctx, '/webhooks', 'Webhooks', content, extra.flash));
  }

  async function act(
    request: FastifyRequest,
    reply: FastifyReply,
    run: () => Promise<{ redirect?: string; top?: Html; flash?: Flash }>,
  ) {
    try {
      const outcome = await run();
      if (outcome.redirect !== undefined) return tools.redirect(reply, outcome.redirect);
      return render(request, reply, 200, outcome);
    } catch (error) {
      const { status, flash } = flashOf(request, error);
      return render(request, reply, status, { flash });
    }
  }

  app.get('/dashboard/webhooks', async (request, reply) => {
    const done = DONE[String((request.query as Record<string, unknown>)['done'])];
    return render(
      request,
      reply,
      200,
      done === undefined ? {} : { flash: { kind: 'ok', text: done } },
    );
  });

  app.post('/dashboard/webhooks', (request, reply) =>
    submit(
      request,
      reply,
      {
        refused: (status, form) => render(request, reply, status, { form }),
        failed: (status, flash) => render(request, reply, status, { flash }),
      },
      async () => {
        const url = text(request.body, 'url');
        const events = values(request.body, 'events');
        const problems: { name: string; reason: string }[] = [];
        const urlProblem = lengthProblem(url, WebhookUrlSchema);
        if (urlProblem !== '') problems.push({ name: 'url', reason: urlProblem });
        if (events.length === 0)
          problems.push({ name: 'events', reason: 'choose at least one event' });
        if (problems.length > 0) throw invalid(...problems);
        const created = await deps.webhooks.create(
          signedIn(request).principal,
          { url, events },
          request.ip,
        );
        return render(request, reply, 200, {
          top: secretBlock(created.secret, `Endpoint added: ${created.url}`),
        });
      },
    ),
  );

  type Params = { id: string; delivery?: string };
  app.post('/dashboard/webhooks/:id/test', (request, reply) =>
    act(request, reply, async () => {
      const result = await deps.webhooks.sendTest(
        signedIn(request).principal,
        (request.params as Params).id,
      );
      const text = result.ok
        ? `The test event was accepted: HTTP ${result.status_code} in ${result.duration_ms} ms.`
        : `The test event failed: ${result.status_code === null ? (result.error ?? 'no response') : `HTTP ${result.status_code}`}.`;
      return { flash: { kind: result.ok ? 'ok' : 'error', text } };
    }),
  );

  app.post('/dashboard/webhooks/:id/rotate-secret', (request, reply) =>
    act(request, reply, async () => {
      const rotated = await deps.webhooks.rotateSecret(
        signedIn(request).principal,
        (request.params as Params).id,
        request.ip,
      );
      return {
        top: secretBlock(
          rotated.secret,
          'The secret was rotated: the previous one keeps signing for 24 hours',
        ),
      };
    }),
  );

  app.post('/dashboard/webhooks/:id/delete', (request, reply) =>
    act(request, reply, async () => {
      await deps.webhooks.remove(
        signedIn(request).principal,
        (request.params as Params).id,
        request.ip,
      );
      return { redirect: '/webhooks?done=deleted' };
    }),
  );

  app.post('/dashboard/webhooks/:id/deliveries/:delivery/redeliver', (request, reply) =>
    act(request, reply, async () => {
      const { id, delivery } = request.params as Params;
      await deps.webhooks.redeliver(
        signedIn(request).principal,
        id,
        delivery as string,
        request.ip,
      );
      return { redirect: '/webhooks?done=redelivered' };
    }),
  );
}
