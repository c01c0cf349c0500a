import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { allowlistProblems, SCOPES } from '../auth/index.js';
import { KeyBodySchema, KeyNameSchema, type PublicKey } from '../keys/index.js';
import { flashOf, type DashboardTools, signedIn } from './context.js';
import { markup, type Html } from '../lib/html.js';
import { csrfField } from './session.js';
import type { FormState } from './forms.js';
import {
  doneFlash,
  type FieldLabel,
  submitOnPage,
  lengthProblem,
  listProblem,
  Problems,
  type RefusedForm,
  stateOf,
  text,
  values,
  words,
  type Body,
} from './forms.js';
import { BASE, page, time, type Flash } from './layout.js';

const ALLOWLIST_HINT = 'Addresses or CIDR ranges, comma-separated; empty: any address.';

/** The create form's fields, and a key's (its id in theirs). */
const CREATE: Record<string, FieldLabel> = {
  name: { id: 'key-name', label: 'Name' },
  mode: { id: 'key-mode', label: 'Mode' },
  scopes: { id: 'key-scopes', label: 'Scopes' },
  allowlist: { id: 'key-allowlist', label: 'IP allowlist' },
};
const keyLabels = (id: string): Record<string, FieldLabel> => ({
  name: { id: `name-${id}`, label: 'Name' },
  allowlist: { id: `allow-${id}`, label: 'IP allowlist' },
});

/** A key's name and allowlist from a form, checked as the API checks them, every problem at once. */
function checked(body: Body, problems: Problems): { name: string; allowlist?: string[] } {
  const name = text(body, 'name');
  problems.add('name', lengthProblem(name, KeyNameSchema));
  const raw = body['allowlist'];
  if (typeof raw !== 'string') return { name };
  const allowlist = words(raw);
  problems.add(
    'allowlist',
    listProblem(allowlist, KeyBodySchema.properties.allowlist) ||
      allowlistProblems(allowlist).join('; '),
  );
  return { name, allowlist };
}

const DONE: Record<string, string> = {
  renamed: 'The key was updated.',
  revoked: 'The key was revoked: requests with it are refused from now on.',
};

function keyRow(k: PublicKey, csrf: string, allowlists: boolean, form: FormState): Html {
  const live = k.status === 'active' || k.status === 'expiring';
  const id = k.id;
  const labels = keyLabels(id);
  return markup`<tr>
    <td data-label="Name">${k.name}</td>
    <td data-label="Prefix"><code>${k.prefix}…</code></td>
    <td data-label="Mode">${k.mode}</td>
    <td data-label="Scopes">${k.scopes === null ? 'all' : k.scopes.join(', ')}</td>
    <td data-label="Status">
      ${k.status}${k.expires_at !== null && k.status === 'expiring' ? markup` until ${time(k.expires_at)}` : ''}
    </td>
    <td data-label="Created">${time(k.created_at)}</td>
    <td data-label="Last used">${time(k.last_used_at, 'never')}</td>
    <td data-label="Actions">
      ${
        live
          ? markup`<details ${form.refusedSubmit ? markup`open` : ''}>
              <summary>Manage<span class="sr-only"> ${k.name}</span></summary>
              <form method="post" action="${BASE}/keys/${id}/update" class="stack">
                ${form.summary(labels)}
                ${csrfField(csrf)}
                ${form.field('name', labels['name']!, { schema: KeyNameSchema, value: k.name })}
                ${
                  allowlists
                    ? form.field('allowlist', labels['allowlist']!, {
                        value: k.allowlist.join(', '),
                        hint: ALLOWLIST_HINT,
                      })
                    : ''
                }
                <button type="submit" class="secondary">Save</button>
              </form>
              <form
                method="post"
                action="${BASE}/keys/${id}/rotate"
                class="inline"
                data-confirm="Rotate this key? The old secret keeps working for 24 hours."
              >
                ${csrfField(csrf)}
                <button type="submit" class="secondary">Rotate</button>
              </form>
              <form
                method="post"
                action="${BASE}/keys/${id}/revoke"
                class="inline"
                data-confirm="Revoke this key? Requests with it are refused at once."
              >
                ${csrfField(csrf)}
                <button type="submit" class="danger">Revoke</button>
              </form>
            </details>`
          : ''
      }
    </td>
  </tr>`;
}

export function secretBlock(secret: { key: string; name: string }): Html {
  return markup`<section class="card" aria-labelledby="secret-title">
    <h2 id="secret-title">Your new key “${secret.name}”</h2>
    <p class="warn">Copy it now: it is shown only once and cannot be shown again.</p>
    <label for="new-key">Secret key</label>
    <input id="new-key" class="secret" readonly value="${secret.key}" />
    <button type="button" data-copy="new-key" hidden>Copy the key</button>
    <span id="new-key-status" role="status"></span>
  </section>`;
}

/** GET/POST /dashboard/keys…: list, create (secret shown once), rename, allowlist, rotate, revoke. */
export function keyPages(app: FastifyInstance, tools: DashboardTools): void {
  const { deps } = tools;

  async function render(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    extra: {
      flash?: Flash;
      secret?: { key: string; name: string };
      /** A refused form: the create form's ('new') or a key's (its id). */
      form?: RefusedForm;
    } = {},
  ) {
    const { principal, page: ctx } = signedIn(request);
    const plan = principal.plan;
    const keys = plan.maxKeys === 0 ? [] : await deps.keys.list(principal.accountId as string);
    const form = stateOf(extra.form, 'new');
    // Each mode has its own key limit (docs/test-mode.md).
    const inUse = (mode: string) =>
      keys.filter((k) => k.mode === mode && (k.status === 'active' || k.status === 'expiring'))
        .length;
    const live = inUse('live');
    const test = inUse('test');
    const limit = plan.maxKeys === null ? 'unlimited' : String(plan.maxKeys);
    const fullOf = (n: number) => plan.maxKeys !== null && n >= plan.maxKeys;
    const full = fullOf(live) && fullOf(test);
    const off = full ? markup`disabled` : '';
    const mode = form.value('mode', fullOf(live) ? 'test' : 'live');
    const modeRadio = (value: 'live' | 'test', text: string) =>
      markup`<label>
        <input type="radio" name="mode" value="${value}" ${fullOf(value === 'live' ? live : test) ? markup`disabled` : mode === value ? markup`checked` : ''} />
        <span>${text}</span>
      </label>`;
    const content =
      plan.maxKeys === 0
        ? markup`<p>
            The ${plan.name} plan works without a key (${plan.name} requests are counted by
            address). Keys come with the Developer plan and above:
            <a href="${BASE}/billing">choose a plan</a>.
          </p>`
        : markup`${extra.secret === undefined ? '' : secretBlock(extra.secret)}
            <p id="key-count">
              ${live} of ${limit} live keys and ${test} of ${limit} test keys in use on the
              ${plan.name} plan. Test keys (<code>sk_test_…</code>) read the same figures outside
              quota and billing, at 30 requests a minute and 1,000 a day for the account:
              <a href="/docs/guides/test-mode">test mode</a>.
            </p>
            <div class="table-wrap">
              <table id="keys" class="cards-on-phone">
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Prefix</th>
                    <th scope="col">Mode</th>
                    <th scope="col">Scopes</th>
                    <th scope="col">Status</th>
                    <th scope="col">Created</th>
                    <th scope="col">Last used</th>
                    <th scope="col">Actions</th>
                  </tr>
                </thead>
                <tbody>
                  ${
                    keys.length === 0
                      ? markup`<tr>
                          <td colspan="8">No keys yet.</td>
                        </tr>`
                      : keys.map((k) =>
                          keyRow(k, ctx.csrf, plan.ipAllowlist, stateOf(extra.form, k.id)),
                        )
                  }
                </tbody>
              </table>
            </div>
            <h2>Create a key</h2>
            <form method="post" action="${BASE}/keys" class="stack">
              ${form.summary(CREATE)}
              ${csrfField(ctx.csrf)}
              ${form.field('name', CREATE['name']!, {
                schema: KeyNameSchema,
                attrs: markup`placeholder="production" ${off}`,
              })}
              <fieldset id="${CREATE['mode']!.id}" ${off}>
                <legend>Mode</legend>
                ${form.note('mode', CREATE['mode']!.id)}
                ${modeRadio('live', 'Live, sk_live_…: counts against the quota')}
                ${modeRadio('test', 'Test, sk_test_…: not billed, 30 requests a minute, reads only')}
              </fieldset>
              ${
                plan.scopedKeys
                  ? markup`<fieldset class="choices" id="${CREATE['scopes']!.id}" ${form.marks('scopes', CREATE['scopes']!.id)} ${off}>
                      <legend>Scopes (none ticked: every scope)</legend>
                      ${form.note('scopes', CREATE['scopes']!.id)}
                      ${SCOPES.map((scope) => markup`<label><input type="checkbox" name="scopes" value="${scope}" ${form.chosen('scopes', scope) ? markup`checked` : ''} /> ${scope}</label>`)}
                    </fieldset>`
                  : ''
              }
              ${
                plan.ipAllowlist
                  ? form.field('allowlist', CREATE['allowlist']!, {
                      hint: ALLOWLIST_HINT,
                      attrs: off,
                    })
                  : ''
              }
              <button type="submit" ${full ? markup`disabled aria-describedby="key-full"` : ''}>
                Create key
              </button>
              ${
                full
                  ? markup`<p id="key-full" class="reason">
                      ${plan.maxKeys === 1 ? `The ${plan.name} plan has one key, and it is in use: revoke it` : `All ${limit} keys of the ${plan.name} plan are in use: revoke one`}, or
                      ${plan.id === 'business' ? 'move to Enterprise (unlimited keys)' : markup`<a href="${BASE}/billing">change plan</a>`}
                      for more.
                    </p>`
                  : ''
              }
            </form>`;
    return tools.send(reply, status, page(ctx, '/keys', 'API keys', content, extra.flash));
  }

  app.get('/dashboard/keys', async (request, reply) => {
    const flash = doneFlash(request, DONE);
    return render(request, reply, 200, flash === undefined ? {} : { flash });
  });

  app.post('/dashboard/keys', (request, reply) =>
    submitOnPage(request, reply, render, { of: 'new', labels: CREATE }, async () => {
      const { principal } = signedIn(request);
      const body = (request.body ?? {}) as Body;
      const problems = new Problems();
      const { name, allowlist } = checked(body, problems);
      // As the API: live unless said.
      const mode = text(body, 'mode') || 'live';
      if (mode !== 'live' && mode !== 'test') problems.add('mode', 'must be live or test');
      const scopes = values(body, 'scopes');
      const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
      if (unknown.length > 0) problems.add('scopes', `unknown scope ${unknown.join(', ')}`);
      problems.throwAny();
      const created = await deps.keys.create(
        principal,
        {
          name,
          mode: mode === 'test' ? 'test' : 'live',
          ...(scopes.length > 0 ? { scopes } : {}),
          ...(allowlist === undefined || allowlist.length === 0 ? {} : { allowlist }),
        },
        request.ip,
      );
      return render(request, reply, 201, { secret: { key: created.key, name: created.name } });
    }),
  );

  app.post('/dashboard/keys/:id/update', (request, reply) => {
    const { id } = request.params as { id: string };
    return submitOnPage(request, reply, render, { of: id, labels: keyLabels(id) }, async () => {
      const problems = new Problems();
      const input = checked((request.body ?? {}) as Body, problems);
      problems.throwAny();
      await deps.keys.update(signedIn(request).principal, id, input, request.ip);
      return tools.redirect(reply, '/keys?done=renamed');
    });
  });

  app.post('/dashboard/keys/:id/revoke', async (request, reply) => {
    const { id } = request.params as { id: string };
    try {
      await deps.keys.revoke(signedIn(request).principal, id, request.ip);
      return tools.redirect(reply, '/keys?done=revoked');
    } catch (error) {
      const { status, flash } = flashOf(request, error);
      return render(request, reply, status, { flash });
    }
  });

  app.post('/dashboard/keys/:id/rotate', async (request, reply) => {
    const { id } = request.params as { id: string };
    try {
      const rotated = await deps.keys.rotate(signedIn(request).principal, id, request.ip);
      return render(request, reply, 201, {
        secret: { key: rotated.key.key, name: rotated.key.name },
        flash: {
          kind: 'ok',
          text: 'The key was rotated: the old secret keeps working for 24 hours.',
        },
      });
    } catch (error) {
      const { status, flash } = flashOf(request, error);
      return render(request, reply, status, { flash });
    }
  });
}
