import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { KeyNameSchema, type PublicKey } from '../keys/index.js';
import { flashOf, type DashboardTools, signedIn } from './context.js';
import { markup, type Html } from '../lib/html.js';
import { invalid, lengthAttributes, lengthProblem } from './forms.js';
import { BASE, page, time, type Flash } from './layout.js';

type Body = Record<string, unknown>;
const text = (body: unknown, name: string): string => {
  const value = (body as Body | undefined)?.[name];
  return typeof value === 'string' ? value.trim() : '';
};
const list = (value: string): string[] =>
  value
    .split(/[\s,]+/)
    .map((v) => v.trim())
    .filter((v) => v.length > 0);

/** A key's name from a form, refused as the API refuses it. */
function keyName(body: unknown): string {
  const name = text(body, 'name');
  const reason = lengthProblem(name, KeyNameSchema);
  if (reason !== '') throw invalid({ name: 'name', reason });
  return name;
}

const DONE: Record<string, string> = {
  renamed: 'The key was updated.',
  revoked: 'The key was revoked: requests with it are refused from now on.',
};

function keyRow(k: PublicKey, csrf: string, allowlists: boolean): Html {
  const live = k.status === 'active' || k.status === 'expiring';
  const id = k.id;
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
          ? markup`<details>
              <summary>Manage<span class="sr-only"> ${k.name}</span></summary>
              <form method="post" action="${BASE}/keys/${id}/update" class="stack">
                <input type="hidden" name="_csrf" value="${csrf}" />
                <label for="name-${id}">Name</label>
                <input id="name-${id}" name="name" ${lengthAttributes(KeyNameSchema)} value="${k.name}" />
                ${
                  allowlists
                    ? markup`<label for="allow-${id}"
                          >IP allowlist (addresses or CIDR ranges, comma-separated; empty:
                          any)</label
                        >
                        <input
                          id="allow-${id}"
                          name="allowlist"
                          value="${k.allowlist.join(', ')}"
                        />`
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
                <input type="hidden" name="_csrf" value="${csrf}" />
                <button type="submit" class="secondary">Rotate</button>
              </form>
              <form
                method="post"
                action="${BASE}/keys/${id}/revoke"
                class="inline"
                data-confirm="Revoke this key? Requests with it are refused at once."
              >
                <input type="hidden" name="_csrf" value="${csrf}" />
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
    extra: { flash?: Flash; secret?: { key: string; name: string } } = {},
  ) {
    const { principal, page: ctx } = signedIn(request);
    const plan = principal.plan;
    const keys = plan.maxKeys === 0 ? [] : await deps.keys.list(principal.accountId as string);
    // Each mode has its own key limit (docs/test-mode.md).
    const inUse = (mode: string) =>
      keys.filter((k) => k.mode === mode && (k.status === 'active' || k.status === 'expiring'))
        .length;
    const live = inUse('live');
    const test = inUse('test');
    const limit = plan.maxKeys === null ? 'unlimited' : String(plan.maxKeys);
    const fullOf = (n: number) => plan.maxKeys !== null && n >= plan.maxKeys;
    const full = fullOf(live) && fullOf(test);
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
                      : keys.map((k) => keyRow(k, ctx.csrf, plan.ipAllowlist))
                  }
                </tbody>
              </table>
            </div>
            <h2>Create a key</h2>
            <form method="post" action="${BASE}/keys" class="stack">
              <input type="hidden" name="_csrf" value="${ctx.csrf}" />
              <label for="key-name">Name</label>
              <input
                id="key-name"
                name="name"
                ${lengthAttributes(KeyNameSchema)}
                placeholder="production"
                ${full ? markup`disabled` : ''}
              />
              <fieldset ${full ? markup`disabled` : ''}>
                <legend>Mode</legend>
                <label>
                  <input type="radio" name="mode" value="live" ${fullOf(live) ? markup`disabled` : markup`checked`} />
                  <span>Live, sk_live_…: counts against the quota</span>
                </label>
                <label>
                  <input type="radio" name="mode" value="test" ${fullOf(live) && !fullOf(test) ? markup`checked` : ''} ${fullOf(test) ? markup`disabled` : ''} />
                  <span>Test, sk_test_…: not billed, 30 requests a minute, reads only</span>
                </label>
              </fieldset>
              ${plan.scopedKeys ? markup`<label for="key-scopes">Scopes (space-separated; empty: every scope)</label><input id="key-scopes" name="scopes" placeholder="salary:read usage:read" />` : ''}
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
    const done = DONE[String((request.query as Body)['done'])];
    return render(
      request,
      reply,
      200,
      done === undefined ? {} : { flash: { kind: 'ok', text: done } },
    );
  });

  app.post('/dashboard/keys', async (request, reply) => {
    const { principal } = signedIn(request);
    const scopes = list(text(request.body, 'scopes'));
    const mode = text(request.body, 'mode') === 'test' ? 'test' : 'live';
    try {
      const created = await deps.keys.create(
        principal,
        { name: keyName(request.body), mode, ...(scopes.length > 0 ? { scopes } : {}) },
        request.ip,
      );
      return render(request, reply, 201, { secret: { key: created.key, name: created.name } });
    } catch (error) {
      const { status, flash } = flashOf(request, error);
      return render(request, reply, status, { flash });
    }
  });

  app.post('/dashboard/keys/:id/update', async (request, reply) => {
    const { principal } = signedIn(request);
    const { id } = request.params as { id: string };
    const allowlist = (request.body as Body | undefined)?.['allowlist'];
    try {
      await deps.keys.update(
        principal,
        id,
        {
          name: keyName(request.body),
          ...(typeof allowlist === 'string' ? { allowlist: list(allowlist) } : {}),
        },
        request.ip,
      );
      return tools.redirect(reply, '/keys?done=renamed');
    } catch (error) {
      const { status, flash } = flashOf(request, error);
      return render(request, reply, status, { flash });
    }
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
