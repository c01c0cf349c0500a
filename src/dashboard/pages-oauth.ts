import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { JWK } from 'jose';
import { SCOPES } from '../auth/index.js';
import {
  AUTH_METHODS,
  MAX_CLIENTS,
  type OAuthClientService,
  type PublicClient,
} from '../oauth/index.js';
import { type DashboardTools, signedIn } from './context.js';
import {
  act,
  answeredNotInPlan,
  button,
  doneFlash,
  invalid,
  secretCard,
  text,
  values,
  words,
  type Body,
} from './forms.js';
import { markup, type Html } from '../lib/html.js';
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

type Problems = { name: string; reason: string }[];

/** A JWKS typed into the form, as JSON: `{"keys": [...]}` or one key alone. */
function jwksOf(raw: string, problems: Problems): { keys: JWK[] } | undefined {
  if (raw === '') return undefined;
  try {
    const parsed = JSON.parse(raw) as unknown;
    const jwks = Array.isArray((parsed as { keys?: unknown }).keys)
      ? (parsed as { keys: JWK[] })
      : { keys: [parsed as JWK] };
    if (jwks.keys.length > 10 || jwks.keys.some((k) => typeof k !== 'object' || k === null))
      problems.push({ name: 'jwks', reason: 'must hold 1 to 10 keys, each a JSON object' });
    return jwks;
  } catch {
    problems.push({ name: 'jwks', reason: 'is not JSON (paste the JWKS: {"keys": [ … ]})' });
    return undefined;
  }
}

function clientRow(c: PublicClient, csrf: string): Html {
  const keyed = c.token_endpoint_auth_method === 'private_key_jwt';
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
        ? markup`<details>
            <summary>Public keys (JWKS)<span class="sr-only"> of ${c.name}</span></summary>
            <form method="post" action="${BASE}/oauth-clients/${c.id}/keys" class="stack">
              <input type="hidden" name="_csrf" value="${csrf}" />
              <label for="jwks-${c.id}">The keys its assertions are signed with</label>
              <textarea id="jwks-${c.id}" name="jwks" rows="6" class="code">${JSON.stringify(c.jwks, null, 2)}</textarea>
              <button type="submit" class="secondary">Save the keys</button>
            </form>
          </details>`
        : ''
    }
  </section>`;
}

function createForm(csrf: string, full: boolean): Html {
  const off = full ? markup`disabled` : '';
  return markup`${full ? markup`<p class="reason" id="clients-full">An account has at most ${MAX_CLIENTS} OAuth clients: delete one to create another.</p>` : ''}
    <form method="post" action="${BASE}/oauth-clients" class="stack">
      <input type="hidden" name="_csrf" value="${csrf}" />
      <label for="client-name">Name</label>
      <input id="client-name" name="name" required maxlength="100" placeholder="payroll sync" ${off} />
      <fieldset class="choices">
        <legend>Scopes</legend>
        ${SCOPES.map((s) => markup`<label><input type="checkbox" name="scopes" value="${s}" ${s === 'salary:read' ? markup`checked` : ''} ${off} /> ${s}</label>`)}
      </fieldset>
      <fieldset>
        <legend>How the client authenticates</legend>
        ${AUTH_METHODS.map((m, i) => markup`<label><input type="radio" name="method" value="${m}" ${i === 0 ? markup`checked` : ''} ${off} /> ${METHOD_TEXT[m]}</label>`)}
      </fieldset>
      <label for="client-jwks">Public keys for private_key_jwt (JWKS as JSON)</label>
      <textarea id="client-jwks" name="jwks" rows="4" class="code" placeholder='{"keys": [{"kty": "EC", "crv": "P-256", "x": "…", "y": "…"}]}' ${off}></textarea>
      <label for="client-allowlist">Allowed addresses or CIDR ranges (empty: those of this account)</label>
      <input id="client-allowlist" name="allowlist" maxlength="2000" ${off} />
      <label class="check">
        <input type="checkbox" name="dpop_bound" value="on" ${off} /> Require DPoP-bound tokens (RFC 9449)
      </label>
      <button type="submit" ${off}>Create the client</button>
    </form>`;
}

/** /dashboard/oauth-clients…: create (secret once), rotate, public keys, delete (Enterprise). */
export function oauthClientPages(app: FastifyInstance, tools: DashboardTools): void {
  const { deps } = tools;
  const service = (): OAuthClientService => deps.oauthClients as OAuthClientService;
  const gate = (request: FastifyRequest, reply: FastifyReply) =>
    answeredNotInPlan(request, reply, tools, {
      path: PATH,
      title: TITLE,
      has: deps.oauthClients !== undefined && signedIn(request).principal.plan.oauth,
    });

  async function render(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    extra: { flash?: Flash; top?: Html } = {},
  ) {
    const { principal, page: ctx } = signedIn(request);
    const clients = await service().list(principal);
    const content = markup`${extra.top ?? ''}
      <p>
        Clients get access tokens with the client-credentials grant; the endpoints are in
        <a href="/.well-known/oauth-authorization-server">the server’s metadata</a>.
      </p>
      <p id="client-count">${clients.length} of ${MAX_CLIENTS} clients.</p>
      ${clients.length === 0 ? markup`<p>No clients yet.</p>` : clients.map((c) => clientRow(c, ctx.csrf))}
      <h2>Create a client</h2>
      ${createForm(ctx.csrf, clients.length >= MAX_CLIENTS)}`;
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
    return act(request, reply, failed(request, reply), async () => {
      const body = (request.body ?? {}) as Body;
      const problems: Problems = [];
      const name = text(body, 'name');
      if (name === '' || name.length > 100)
        problems.push({ name: 'name', reason: 'is required (at most 100 characters)' });
      const scopes = values(body, 'scopes');
      if (scopes.length === 0 || scopes.some((s) => !(SCOPES as readonly string[]).includes(s)))
        problems.push({ name: 'scopes', reason: 'choose one or more of the listed scopes' });
      const method = text(body, 'method') || 'client_secret_basic';
      if (!(AUTH_METHODS as readonly string[]).includes(method))
        problems.push({ name: 'method', reason: `must be one of ${AUTH_METHODS.join(', ')}` });
      const jwks = jwksOf(text(body, 'jwks'), problems);
      const allowlist = words(text(body, 'allowlist'));
      if (problems.length > 0) throw invalid(...problems);
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
    return act(request, reply, failed(request, reply), async () => {
      const problems: Problems = [];
      const jwks = jwksOf(text(request.body, 'jwks'), problems);
      if (jwks === undefined && problems.length === 0)
        problems.push({ name: 'jwks', reason: 'must hold one or more public keys' });
      if (problems.length > 0) throw invalid(...problems);
      await service().update(signedIn(request).principal, idOf(request), { jwks }, request.ip);
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
