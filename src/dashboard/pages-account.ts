import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { exportFileName, isEmail, normalizeEmail } from '../accounts/index.js';
import { AppError } from '../errors/index.js';
import { actorOf } from '../auth/index.js';
import { flashOf, type DashboardTools, signedIn } from './context.js';
import { clearCookie, SESSION_COOKIE } from './session.js';
import { password } from './forms.js';
import { markup } from '../lib/html.js';
import { BASE, page, publicPage, time, type Flash } from './layout.js';
import { twoFactorPages, twoFactorSection } from './pages-two-factor.js';

const DONE: Record<string, string> = {
  allowlist: 'The IP allowlist was saved.',
  password: 'The password was changed; every other session was signed out.',
  contacts: 'The contact addresses were saved.',
  verification: 'A new confirmation link was mailed to the account’s address.',
  'two-factor-off': 'Two-factor sign-in was turned off.',
};

/** GET/POST /dashboard/account…: the account, its IP allowlist and its audit log. */
export function accountPages(app: FastifyInstance, tools: DashboardTools): void {
  const { deps } = tools;

  async function render(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    flash?: Flash,
  ) {
    const { principal, page: ctx } = signedIn(request);
    const accountId = principal.accountId as string;
    const [account, audit, contacts, totp] = await Promise.all([
      deps.accounts.get(accountId),
      deps.accounts.auditLog(accountId, {}, 50),
      deps.support.contacts(accountId),
      deps.accounts.totpStatus(accountId),
    ]);
    const { support } = contacts;
    const content = markup`<dl class="cards">
        <div class="card">
          <dt>E-mail</dt>
          <dd>
            ${account.email}
            ${
              account.emailVerifiedAt === null
                ? markup`<br /><span class="muted">not confirmed yet</span>
                  <form method="post" action="${BASE}/account/verify-email" class="inline">
                    <input type="hidden" name="_csrf" value="${ctx.csrf}" />
                    <button type="submit">Mail a new confirmation link</button>
                  </form>`
                : markup`<br /><span class="muted">confirmed ${time(account.emailVerifiedAt)}</span>`
            }
          </dd>
        </div>
        <div class="card">
          <dt>Account id</dt>
          <dd><code>${account.id}</code></dd>
        </div>
        <div class="card">
          <dt>Created</dt>
          <dd>${time(account.createdAt)}</dd>
        </div>
      </dl>
      <h2>Support</h2>
      <p>
        Your plan's support: ${support.channel}${
          support.response_target === null
            ? ''
            : markup`, answered within ${support.response_target}`
        }.
        ${
          support.community_url === undefined
            ? ''
            : markup`Ask in the <a href="${support.community_url}">community</a>.`
        }
        ${
          support.account_manager === undefined
            ? ''
            : markup`Your account manager: ${support.account_manager.name ?? ''}
              <a href="mailto:${support.account_manager.email}">${support.account_manager.email}</a>.`
        }
      </p>
      <h2>E-mail contacts</h2>
      <form method="post" action="${BASE}/account/contacts" class="stack">
        <input type="hidden" name="_csrf" value="${ctx.csrf}" />
        <label for="billing_email">Billing notices go to (empty: ${account.email})</label>
        <input
          id="billing_email"
          name="billing_email"
          type="email"
          maxlength="254"
          autocomplete="email"
          value="${contacts.billing_email ?? ''}"
        />
        <label for="technical_email">Technical and security notices go to (empty: ${account.email})</label>
        <input
          id="technical_email"
          name="technical_email"
          type="email"
          maxlength="254"
          autocomplete="email"
          value="${contacts.technical_email ?? ''}"
        />
        <label class="check">
          <input type="checkbox" name="notices_opt_out" value="on" ${
            contacts.notices_opt_out ? markup`checked` : ''
          } />
          No e-mail but billing and security notices
        </label>
        <button type="submit">Save the contacts</button>
      </form>
      <h2>IP allowlist</h2>
      ${
        principal.plan.ipAllowlist
          ? markup`<p>
                When the list is not empty, API keys work only from these addresses. Signing in here
                keeps working from anywhere, so a wrong list can be fixed.
              </p>
              <form method="post" action="${BASE}/account/allowlist" class="stack">
                <input type="hidden" name="_csrf" value="${ctx.csrf}" />
                <label for="allowlist"
                  >Addresses or CIDR ranges, one per line or comma-separated (empty: any
                  address)</label
                >
                <textarea id="allowlist" name="allowlist" rows="4" cols="40">
${account.allowlist.join('\n')}</textarea>
                <button type="submit">Save the allowlist</button>
              </form>`
          : markup`<p>
              IP allowlists come with the Business plan and above.
              <a href="${BASE}/billing">Change plan</a>.
            </p>`
      }
      ${twoFactorSection(totp, ctx.csrf)}
      <h2>Password</h2>
      <p>
        Changing the password signs out every other session of the account, and the account is told
        by e-mail.
      </p>
      <form method="post" action="${BASE}/account/password" class="stack">
        <input type="hidden" name="_csrf" value="${ctx.csrf}" />
        <label for="current_password">Current password</label>
        <input
          id="current_password"
          name="current_password"
          type="password"
          required
          maxlength="256"
          autocomplete="current-password"
        />
        <label for="new_password">New password</label>
        <input
          id="new_password"
          name="new_password"
          type="password"
          required
          minlength="12"
          maxlength="256"
          autocomplete="new-password"
          aria-describedby="new-password-help"
        />
        <p id="new-password-help" class="muted">
          At least 12 characters, not a common password, not your e-mail address.
        </p>
        <button type="submit">Change the password</button>
      </form>
      <h2 id="your-data">Your data</h2>
      <p>
        One JSON file holds everything we keep about the account: the account, API keys (never their
        secrets), sessions, subscription, billing details, invoices, usage per day, webhooks, exports,
        custom endpoints and the audit log.
      </p>
      <p><a href="${BASE}/account/export" download>Download my data (JSON)</a></p>
      <h2 id="delete-account">Delete the account</h2>
      <p>
        At once: every API key and session stops working, the subscription is canceled (the period
        under way is not refunded), webhooks, exports and billing details are deleted and the e-mail
        address and contacts are erased. Invoices and payments are kept for 10 years, as tax law
        requires, and the audit log is kept. Download your data first.
      </p>
      <form method="post" action="${BASE}/account/delete" class="stack">
        <input type="hidden" name="_csrf" value="${ctx.csrf}" />
        <label for="delete_password">Password</label>
        <input
          id="delete_password"
          name="password"
          type="password"
          required
          maxlength="256"
          autocomplete="current-password"
        />
        <label for="delete_confirm">Type DELETE to confirm</label>
        <input
          id="delete_confirm"
          name="confirm"
          type="text"
          required
          maxlength="20"
          pattern="DELETE"
          autocomplete="off"
        />
        <button type="submit" class="danger">Delete the account</button>
      </form>
      <h2>Audit log</h2>
      <div class="table-wrap" tabindex="0" role="region" aria-label="Audit log">
        <table id="audit">
          <caption class="muted">
            The 50 latest security events (tamper-evident, hash-chained)
          </caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Action</th>
              <th scope="col">By</th>
              <th scope="col">Address</th>
            </tr>
          </thead>
          <tbody>
            ${audit.map(
              (e) =>
                markup`<tr>
                  <td>${time(e.created_at)}</td>
                  <td>${e.action}</td>
                  <td>${e.actor}</td>
                  <td>${e.ip ?? ''}</td>
                </tr>`,
            )}
          </tbody>
        </table>
      </div>`;
    return tools.send(reply, status, page(ctx, '/account', 'Account', content, flash));
  }

  twoFactorPages(app, tools, render);

  app.get('/dashboard/account', async (request, reply) => {
    const done = DONE[String((request.query as Record<string, unknown>)['done'])];
    return render(request, reply, 200, done === undefined ? undefined : { kind: 'ok', text: done });
  });

  app.post('/dashboard/account/contacts', async (request, reply) => {
    const body = (request.body as Record<string, unknown> | undefined) ?? {};
    const address = (name: string): string | null => {
      const v = body[name];
      const text = typeof v === 'string' ? v.trim().slice(0, 254) : '';
      return text === '' ? null : text;
    };
    const problems = (['billing_email', 'technical_email'] as const).filter((name) => {
      const v = address(name);
      return v !== null && !isEmail(normalizeEmail(v));
    });
    try {
      if (problems.length > 0)
        throw AppError.invalidParams(
          problems.map((name) => ({ name, reason: 'is not a valid e-mail address' })),
        );
      await deps.support.updateContacts(
        signedIn(request).principal.accountId as string,
        {
          billing_email: address('billing_email'),
          technical_email: address('technical_email'),
          notices_opt_out: body['notices_opt_out'] === 'on',
        },
        { actor: actorOf(signedIn(request).principal), ip: request.ip },
      );
      return tools.redirect(reply, '/account?done=contacts');
    } catch (error) {
      const { status, flash } = flashOf(request, error);
      return render(request, reply, status, flash);
    }
  });

  app.post('/dashboard/account/verify-email', async (request, reply) => {
    const { principal } = signedIn(request);
    try {
      await deps.accounts.sendVerification(
        principal.accountId as string,
        actorOf(principal),
        request.ip,
      );
      return tools.redirect(reply, '/account?done=verification');
    } catch (error) {
      const { status, flash } = flashOf(request, error);
      return render(request, reply, status, flash);
    }
  });

  app.post('/dashboard/account/password', async (request, reply) => {
    const field = (name: string): string => password(request.body, name);
    const { principal } = signedIn(request);
    try {
      await deps.accounts.changePassword(
        principal.accountId as string,
        principal.sessionId,
        { current_password: field('current_password'), new_password: field('new_password') },
        actorOf(principal),
        request.ip,
      );
      return tools.redirect(reply, '/account?done=password');
    } catch (error) {
      const { status, flash } = flashOf(request, error);
      return render(request, reply, status, flash);
    }
  });

  app.get('/dashboard/account/export', async (request, reply) => {
    const { principal } = signedIn(request);
    const accountId = principal.accountId as string;
    const data = await deps.accounts.exportData(accountId, actorOf(principal), request.ip);
    return reply
      .header('content-type', 'application/json; charset=utf-8')
      .header(
        'content-disposition',
        `attachment; filename="${exportFileName(accountId, data.exported_at)}"`,
      )
      .header('cache-control', 'no-store')
      .send(JSON.stringify(data, null, 2));
  });

  app.post('/dashboard/account/delete', async (request, reply) => {
    const field = (name: string): string => password(request.body, name);
    const { principal } = signedIn(request);
    try {
      const result = await deps.accounts.deleteAccount(
        principal.accountId as string,
        { password: field('password'), confirm: field('confirm').trim() },
        actorOf(principal),
        request.ip,
      );
      clearCookie(reply, SESSION_COOKIE);
      const content = markup`<p>
          The account <code>${result.account_id}</code> was deleted ${time(result.deleted_at)}.
          Its API keys and sessions no longer work.
        </p>
        <h2>What we keep</h2>
        <ul>
          ${result.retained.map((line) => markup`<li>${line}</li>`)}
        </ul>
        <p><a href="${BASE}/sign-up">Create a new account</a></p>`;
      return tools.send(reply, 200, publicPage('Account deleted', content));
    } catch (error) {
      const { status, flash } = flashOf(request, error);
      return render(request, reply, status, flash);
    }
  });

  app.post('/dashboard/account/allowlist', async (request, reply) => {
    const raw = (request.body as Record<string, unknown> | undefined)?.['allowlist'];
    const list = (typeof raw === 'string' ? raw : '').split(/[\s,]+/).filter((v) => v.length > 0);
    try {
      await deps.accounts.setAllowlist(signedIn(request).principal, list, request.ip);
      return tools.redirect(reply, '/account?done=allowlist');
    } catch (error) {
      const { status, flash } = flashOf(request, error);
      return render(request, reply, status, flash);
    }
  });
}
