import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { JWK } from 'jose';
import { allowlistProblems, SCOPES } from '../auth/index.js';
import {
  AUTH_METHODS,
  MAX_CLIENTS,
  NewOAuthClientBodySchema,
  type OAuthClientService,
  type PublicClient,
} from '../oauth/index.js';
import { type DashboardTools, signedIn } from './context.js';
import type { FormState } from './forms.js';
import {
  act,
  answeredNotInPlan,
  button,
  doneFlash,
  type FieldLabel,
  submitOnPage,
  lengthProblem,
  listProblem,
  Problems,
  type RefusedForm,
  secretCard,
  stateOf,
  text,
  values,
  words,
  type Body,
} from './forms.js';
import { markup, type Html } from '../lib/html.js';
import { csrfField } from './session.js';
import { BASE, page, time, type Flash } from './layout.js';

const PATH = '/oauth-clients';
const TITLE = 'OAuth clients';
const DONE: Record<string, string> = {
  deleted: 'The client was deleted: its tokens are refused from now on.',
  keys: 'The client’s public keys were saved.',
};
const METHOD_TEXT: Record<(typeof AUTH_METHODS)[number], string> = {
  client_secret_basic: 'Secret in the Authorization header (client_secret_basic)',
  client_secret_post: 'Secret in the form body (client_secret_post)',
  private_key_jwt: 'A JWT signed with the client’s private key (private_key_jwt)',
};

const FIELDS = NewOAuthClientBodySchema.properties;
const CREATE: Record<string, FieldLabel> = {
  name: { id: 'client-name', label: 'Name' },
  scopes: { id: 'client-scopes', label: 'Scopes' },
  method: { id: 'client-method', label: 'How the client authenticates' },
  jwks: { id: 'client-jwks', label: 'Public keys for private_key_jwt' },
  allowlist: { id: 'client-allowlist', label: 'Allowed addresses or CIDR ranges' },
};
const keysLabels = (id: string): Record<string, FieldLabel> => ({
  jwks: { id: `jwks-${id}`, label: 'The keys its assertions are signed with' },
});

/** A JWKS typed into the form, as JSON: `{"keys": [...]}` or one key alone. */
function jwksOf(raw: string, problems: Problems): { keys: JWK[] } | undefined {
  if (raw === '') return undefined;
  try {
    const parsed = JSON.parse(raw) as unknown;
    const jwks = Array.isArray((parsed as { keys?: unknown }).keys)
      ? (parsed as { keys: JWK[] })
      : { keys: [parsed as JWK] };
    const { maxItems } = FIELDS.jwks.properties.keys;
    if (
      jwks.keys.length > (maxItems ?? Infinity) ||
      jwks.keys.some((k) => typeof k !== 'object' || k === null)
    )
      problems.add('jwks', `must hold 1 to ${maxItems} keys, each a JSON object`);
    return jwks;
  } catch {
    problems.add('jwks', 'is not JSON (paste the JWKS: {"keys": [ … ]})');
    return undefined;
  }
}

function clientRow(c: PublicClient, csrf: string, form: FormState): Html {
  const keyed = c.token_endpoint_auth_method === 'private_key_jwt';
  const labels = keysLabels(c.id);
  return markup`<section class="card" aria-labelledby="client-${c.id}">
    <h3 id="client-${c.id}">${c.name}</h3>
    <dl class="pairs">
      <dt>Client id</dt>
      <dd><code>${c.client_id}</code></dd>
      <dt>Authentication</dt>
      <dd>${METHOD_TEXT[c.token_endpoint_auth_method]}${c.dpop_bound ? '; DPoP required' : ''}</dd>
      <dt>Scopes</dt>
      <dd>${c.scopes.join(', ')}</dd>
      <dt>Allowed addresses</dt>
      <dd>${c.allowlist.length === 0 ? 'any' : c.allowlist.join(', ')}</dd>
      <dt>Created</dt>
      <dd>${time(c.created_at)}</dd>
      ${
        c.previous_secret_expires_at === null
          ? ''
          : markup`<dt>Previous secret</dt>
              <dd>works until ${time(c.previous_secret_expires_at)}</dd>`
      }
    </dl>
    <p>
      ${
        keyed
          ? ''
          : button(`${BASE}/oauth-clients/${c.id}/rotate`, 'Rotate the secret', csrf, {
              confirm: 'Rotate the secret? The old one keeps working for 24 hours.',
              name: c.name,
            })
      }
      ${button(`${BASE}/oauth-clients/${c.id}/delete`, 'Delete', csrf, {
        kind: 'danger',
        confirm: 'Delete this client? Its tokens are refused at once.',
        name: c.name,
      })}
    </p>
    ${
      keyed
        ? markup`<details ${form.refusedSubmit ? markup`open` : ''}>
            <summary>Public keys (JWKS)<span class="sr-only"> of ${c.name}</span></summary>
            <form method="post" action="${BASE}/oauth-clients/${c.id}/keys" class="stack">
              ${form.summary(labels)}
              ${csrfField(csrf)}
              ${form.field('jwks', labels['jwks']!, {
                rows: 6,
                value: JSON.stringify(c.jwks, null, 2),
                attrs: markup`class="code" spellcheck="false"`,
              })}
              <button type="submit" class="secondary">Save the keys</button>
            </form>
          </details>`
        : ''
    }
  </section>`;
}

function createForm(csrf: string, full: boolean, form: FormState): Html {
  const off = full ? markup`disabled` : '';
  const method = form.value('method', AUTH_METHODS[0]);
  const group = (name: string) =>
    markup`id="${CREATE[name]!.id}" ${form.marks(name, CREATE[name]!.id)}`;
  return markup`${full ? markup`<p class="reason" id="clients-full">An account has at most ${MAX_CLIENTS} OAuth clients: delete one to create another.</p>` : ''}
    <form method="post" action="${BASE}/oauth-clients" class="stack">
      ${form.summary(CREATE)}
      ${csrfField(csrf)}
      ${form.field('name', CREATE['name']!, {
        schema: FIELDS.name,
        attrs: markup`placeholder="payroll sync" ${off}`,
      })}
      <fieldset class="choices" ${group('scopes')}>
        <legend>${CREATE['scopes']!.label}</legend>
        ${form.note('scopes', CREATE['scopes']!.id)}
        ${SCOPES.map((s) => markup`<label><input type="checkbox" name="scopes" value="${s}" ${form.chosen('scopes', s, s === 'salary:read') ? markup`checked` : ''} ${off} /> ${s}</label>`)}
      </fieldset>
      <fieldset ${group('method')}>
        <legend>${CREATE['method']!.label}</legend>
        ${form.note('method', CREATE['method']!.id)}
        ${AUTH_METHODS.map((m) => markup`<label><input type="radio" name="method" value="${m}" ${method === m ? markup`checked` : ''} ${off} /> ${METHOD_TEXT[m]}</label>`)}
      </fieldset>
      ${form.field('jwks', CREATE['jwks']!, {
        rows: 4,
        hint: 'The JWKS as JSON, for private_key_jwt only.',
        attrs: markup`class="code" spellcheck="false" placeholder='{"keys": [{"kty": "EC", "crv": "P-256", "x": "…", "y": "…"}]}' ${off}`,
      })}
      ${form.field('allowlist', CREATE['allowlist']!, {
        hint: 'Comma-separated; empty: those of this account.',
        attrs: off,
      })}
      <label class="check">
        <input type="checkbox" name="dpop_bound" value="on" ${form.chosen('dpop_bound', 'on') ? markup`checked` : ''} ${off} /> Require DPoP-bound tokens (RFC 9449)
      </label>
      <button type="submit" ${off}>Create the client</button>
    </form>`;
}

/** /dashboard/oauth-clients…: create (secret once), rotate, public keys, delete (Enterprise). */
export function oauthClientPages(app: FastifyInstance, tools: DashboardTools): void {
  const { deps } = tools;
  const service = (): OAuthClientService => deps.planFeatures.oauthClients as OAuthClientService;
  const gate = (request: FastifyRequest, reply: FastifyReply) =>
    answeredNotInPlan(request, reply, tools, {
      path: PATH,
      title: TITLE,
      has: deps.planFeatures.oauthClients !== undefined && signedIn(request).principal.plan.oauth,
    });

  async function render(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    extra: { flash?: Flash; top?: Html; form?: RefusedForm } = {},
  ) {
    const { principal, page: ctx } = signedIn(request);
    const clients = await service().list(principal);
    const content = markup`${extra.top ?? ''}
      <p>
        Clients get access tokens with the client-credentials grant; the endpoints are in
        <a href="/.well-known/oauth-authorization-server">the server’s metadata</a>.
      </p>
      <p id="client-count">${clients.length} of ${MAX_CLIENTS} clients.</p>
      ${clients.length === 0 ? markup`<p>No clients yet.</p>` : clients.map((c) => clientRow(c, ctx.csrf, stateOf(extra.form, c.id)))}
      <h2>Create a client</h2>
      ${createForm(ctx.csrf, clients.length >= MAX_CLIENTS, stateOf(extra.form, 'new'))}`;
    return tools.send(reply, status, page(ctx, PATH, TITLE, content, extra.flash));
  }

  const failed = (request: FastifyRequest, reply: FastifyReply) => (status: number, flash: Flash) =>
    render(request, reply, status, { flash });
  const idOf = (request: FastifyRequest) => (request.params as { id: string }).id.slice(0, 64);
  const shown = (c: PublicClient, secret: string, heading: string) =>
    markup`${secretCard('client-secret', heading, `Client secret of ${c.client_id}`, secret)}`;

  app.get('/dashboard/oauth-clients', async (request, reply) => {
    if (gate(request, reply)) return reply;
    const flash = doneFlash(request, DONE);
    return render(request, reply, 200, flash === undefined ? {} : { flash });
  });

  app.post('/dashboard/oauth-clients', async (request, reply) => {
    if (gate(request, reply)) return reply;
    return submitOnPage(request, reply, render, { of: 'new', labels: CREATE }, async () => {
      const body = (request.body ?? {}) as Body;
      const problems = new Problems();
      const name = text(body, 'name');
      problems.add('name', lengthProblem(name, FIELDS.name));
      const scopes = values(body, 'scopes');
      if (scopes.length === 0 || scopes.some((s) => !(SCOPES as readonly string[]).includes(s)))
        problems.add('scopes', 'choose one or more of the listed scopes');
      const method = text(body, 'method') || AUTH_METHODS[0];
      if (!(AUTH_METHODS as readonly string[]).includes(method))
        problems.add('method', `must be one of ${AUTH_METHODS.join(', ')}`);
      const jwks = jwksOf(text(body, 'jwks'), problems);
      const allowlist = words(text(body, 'allowlist'));
      problems.add(
        'allowlist',
        listProblem(allowlist, FIELDS.allowlist) || allowlistProblems(allowlist).join('; '),
      );
      problems.throwAny();
      const created = await service().create(
        signedIn(request).principal,
        {
          name,
          scopes,
          token_endpoint_auth_method: method as (typeof AUTH_METHODS)[number],
          ...(allowlist.length === 0 ? {} : { allowlist }),
          ...(jwks === undefined || method !== 'private_key_jwt' ? {} : { jwks }),
          dpop_bound: text(body, 'dpop_bound') === 'on',
        },
        request.ip,
      );
      const top =
        created.client_secret === null
          ? markup`<p class="flash flash-ok" role="status">
                Client “${created.name}” created: <code>${created.client_id}</code>. It signs its
                assertions with its own private key; no secret is made.
              </p>`
          : shown(created, created.client_secret, `Client “${created.name}” created`);
      return render(request, reply, 201, { top });
    });
  });

  app.post('/dashboard/oauth-clients/:id/rotate', async (request, reply) => {
    if (gate(request, reply)) return reply;
    return act(request, reply, failed(request, reply), async () => {
      const rotated = await service().rotateSecret(
        signedIn(request).principal,
        idOf(request),
        request.ip,
      );
      const top = shown(
        rotated,
        rotated.client_secret,
        `New secret for “${rotated.name}”: the previous one works for 24 hours more`,
      );
      return render(request, reply, 200, { top });
    });
  });

  app.post('/dashboard/oauth-clients/:id/keys', async (request, reply) => {
    if (gate(request, reply)) return reply;
    const id = idOf(request);
    return submitOnPage(request, reply, render, { of: id, labels: keysLabels(id) }, async () => {
      const problems = new Problems();
      const jwks = jwksOf(text(request.body, 'jwks'), problems);
      if (jwks === undefined && problems.list.length === 0)
        problems.add('jwks', 'must hold one or more public keys');
      problems.throwAny();
      await service().update(signedIn(request).principal, id, { jwks }, request.ip);
      return tools.redirect(reply, '/oauth-clients?done=keys');
    });
  });

  app.post('/dashboard/oauth-clients/:id/delete', async (request, reply) => {
    if (gate(request, reply)) return reply;
    return act(request, reply, failed(request, reply), async () => {
      await service().remove(signedIn(request).principal, idOf(request), request.ip);
      return tools.redirect(reply, '/oauth-clients?done=deleted');
    });
  });
}
