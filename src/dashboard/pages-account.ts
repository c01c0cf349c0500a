import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  AllowlistBodySchema,
  CredentialsSchema,
  DELETE_CONFIRMATION,
  exportFileName,
  isEmail,
  normalizeEmail,
  PasswordChangeSchema,
  passwordProblem,
} from '../accounts/index.js';
import { actorOf } from '../auth/index.js';
import { ContactsBodySchema } from '../support/index.js';
import { flashOf, type DashboardTools, signedIn } from './context.js';
import { clearCookie, csrfField, SESSION_COOKIE } from './session.js';
import {
  asTyped,
  doneFlash,
  type FieldLabel,
  submitOnPage,
  lengthProblem,
  newPasswordField,
  listProblem,
  password,
  Problems,
  stateOf,
  text,
  textLimits,
  words,
  type Body,
} from './forms.js';
import { markup } from '../lib/html.js';
import { BASE, page, publicPage, time } from './layout.js';
import { twoFactorPages, twoFactorSection } from './pages-two-factor.js';
import type { AccountForm, RenderAccount } from './account-render.js';

/** The Account page's forms, each field's name, element id and label. */
const CONTACTS: Record<string, FieldLabel> = {
  name: { id: 'contact_name', label: 'Your name' },
  billing_email: { id: 'billing_email', label: 'Billing notices go to' },
  technical_email: { id: 'technical_email', label: 'Technical and security notices go to' },
};
/** The longest value of each contact field, as the API's schema has it (each may be empty). */
const CONTACT_LIMITS: Record<string, number | undefined> = Object.fromEntries(
  (['name', 'billing_email', 'technical_email'] as const).map((name) => [
    name,
    textLimits(ContactsBodySchema.properties[name]).maxLength,
  ]),
);
const ALLOWLIST: Record<string, FieldLabel> = {
  allowlist: { id: 'allowlist', label: 'Addresses or CIDR ranges' },
};
const PASSWORD: Record<string, FieldLabel> = {
  current_password: { id: 'current_password', label: 'Current password' },
  new_password: { id: 'new_password', label: 'New password' },
};
const DELETION: Record<string, FieldLabel> = {
  password: { id: 'delete_password', label: 'Password' },
  confirm: { id: 'delete_confirm', label: `Type ${DELETE_CONFIRMATION} to confirm` },
};

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

  const render: RenderAccount = async (request, reply, status, extra = {}) => {
    const { principal, page: ctx } = signedIn(request);
    const formOf = (of: AccountForm['of']) => stateOf(extra.form, of);
    const contactsForm = formOf('contacts');
    const allowlistForm = formOf('allowlist');
    const passwordForm = formOf('password');
    const deleteForm = formOf('delete');
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
                    ${csrfField(ctx.csrf)}
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
      <form method="post" action="${BASE}/account/contacts" class="stack" id="contacts-form">
        ${contactsForm.summary(CONTACTS)}
        ${csrfField(ctx.csrf)}
        ${contactsForm.field('name', CONTACTS['name']!, {
          schema: { maxLength: CONTACT_LIMITS.name },
          value: contacts.name ?? '',
          hint: 'Greets you in our e-mail (optional).',
          attrs: markup`autocomplete="name"`,
        })}
        ${contactsForm.field('billing_email', CONTACTS['billing_email']!, {
          type: 'email',
          schema: { maxLength: CONTACT_LIMITS.billing_email },
          value: contacts.billing_email ?? '',
          hint: `Empty: ${account.email}.`,
          attrs: markup`autocomplete="email"`,
        })}
        ${contactsForm.field('technical_email', CONTACTS['technical_email']!, {
          type: 'email',
          schema: { maxLength: CONTACT_LIMITS.technical_email },
          value: contacts.technical_email ?? '',
          hint: `Empty: ${account.email}.`,
          attrs: markup`autocomplete="email"`,
        })}
        <label class="check">
          <input type="checkbox" name="notices_opt_out" value="on" ${
            contactsForm.chosen('notices_opt_out', 'on', contacts.notices_opt_out)
              ? markup`checked`
              : ''
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
              <form method="post" action="${BASE}/account/allowlist" class="stack" id="allowlist-form">
                ${allowlistForm.summary(ALLOWLIST)}
                ${csrfField(ctx.csrf)}
                ${allowlistForm.field('allowlist', ALLOWLIST['allowlist']!, {
                  rows: 4,
                  value: account.allowlist.join('\n'),
                  hint: `One per line or comma-separated, at most ${AllowlistBodySchema.properties.allowlist.maxItems}; empty: any address.`,
                })}
                <button type="submit">Save the allowlist</button>
              </form>`
          : markup`<p>
              IP allowlists come with the Business plan and above.
              <a href="${BASE}/billing">Change plan</a>.
            </p>`
      }
      ${twoFactorSection(totp, ctx.csrf, formOf('two-factor-off'))}
      <h2>Password</h2>
      <p>
        Changing the password signs out every other session of the account, and the account is told
        by e-mail.
      </p>
      <form method="post" action="${BASE}/account/password" class="stack" id="password-form">
        ${passwordForm.summary(PASSWORD)}
        ${csrfField(ctx.csrf)}
        ${passwordForm.field('current_password', PASSWORD['current_password']!, {
          type: 'password',
          schema: PasswordChangeSchema.properties.current_password,
          attrs: markup`autocomplete="current-password"`,
        })}
        ${passwordForm.field(
          'new_password',
          PASSWORD['new_password']!,
          newPasswordField(PasswordChangeSchema.properties.new_password),
        )}
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
      <form method="post" action="${BASE}/account/delete" class="stack" id="delete-form">
        ${deleteForm.summary(DELETION)}
        ${csrfField(ctx.csrf)}
        ${deleteForm.field('password', DELETION['password']!, {
          type: 'password',
          schema: CredentialsSchema.properties.password,
          attrs: markup`autocomplete="current-password"`,
        })}
        ${deleteForm.field('confirm', DELETION['confirm']!, {
          required: true,
          attrs: markup`maxlength="20" pattern="${DELETE_CONFIRMATION}" autocomplete="off"`,
        })}
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
    return tools.send(reply, status, page(ctx, '/account', 'Account', content, extra.flash));
  };

  twoFactorPages(app, tools, render);

  /** A form's submit: refused, the Account page again with that form's state. */
  const formSubmit = (
    request: FastifyRequest,
    reply: FastifyReply,
    of: AccountForm['of'],
    labels: Record<string, FieldLabel>,
    run: () => Promise<FastifyReply>,
    secrets: readonly string[] = [],
  ) => submitOnPage(request, reply, render, { of, labels, secrets }, run);

  app.get('/dashboard/account', async (request, reply) => {
    const flash = doneFlash(request, DONE);
    return render(request, reply, 200, flash === undefined ? {} : { flash });
  });

  app.post('/dashboard/account/contacts', (request, reply) =>
    formSubmit(request, reply, 'contacts', CONTACTS, async () => {
      const body = (request.body ?? {}) as Body;
      const problems = new Problems();
      const given = (name: string): string | null => {
        const value = text(body, name);
        problems.add(name, lengthProblem(value, { maxLength: CONTACT_LIMITS[name] }));
        return value === '' ? null : value;
      };
      const name = given('name');
      const addresses = (['billing_email', 'technical_email'] as const).map((field) => {
        const address = given(field);
        if (address !== null && !isEmail(normalizeEmail(address)))
          problems.add(field, 'is not a valid e-mail address');
        return address;
      });
      problems.throwAny();
      const { principal } = signedIn(request);
      await deps.support.updateContacts(
        principal.accountId as string,
        {
          name,
          billing_email: addresses[0] ?? null,
          technical_email: addresses[1] ?? null,
          notices_opt_out: body['notices_opt_out'] === 'on',
        },
        { actor: actorOf(principal), ip: request.ip },
      );
      return tools.redirect(reply, '/account?done=contacts');
    }),
  );

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
      return render(request, reply, status, { flash });
    }
  });

  app.post('/dashboard/account/password', (request, reply) =>
    formSubmit(
      request,
      reply,
      'password',
      PASSWORD,
      async () => {
        const { principal, page: ctx } = signedIn(request);
        const problems = new Problems();
        const current = asTyped(request.body, 'current_password');
        problems.add(
          'current_password',
          lengthProblem(current, PasswordChangeSchema.properties.current_password),
        );
        const next = asTyped(request.body, 'new_password');
        problems.add(
          'new_password',
          lengthProblem(next, PasswordChangeSchema.properties.new_password) ||
            passwordProblem(next, ctx.email) ||
            (next === current ? 'is the same as the current password' : ''),
        );
        problems.throwAny();
        await deps.accounts.changePassword(
          principal.accountId as string,
          principal.sessionId,
          { current_password: current, new_password: next },
          actorOf(principal),
          request.ip,
        );
        return tools.redirect(reply, '/account?done=password');
      },
      Object.keys(PASSWORD),
    ),
  );

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

  app.post('/dashboard/account/delete', (request, reply) =>
    formSubmit(
      request,
      reply,
      'delete',
      DELETION,
      async () => {
        const { principal } = signedIn(request);
        const problems = new Problems();
        const typed = password(request.body, 'password', problems);
        const confirm = text(request.body, 'confirm');
        if (confirm !== DELETE_CONFIRMATION)
          problems.add('confirm', `must be the word ${DELETE_CONFIRMATION}`);
        problems.throwAny();
        const result = await deps.accounts.deleteAccount(
          principal.accountId as string,
          { password: typed, confirm },
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
      },
      ['password'],
    ),
  );

  app.post('/dashboard/account/allowlist', (request, reply) =>
    formSubmit(request, reply, 'allowlist', ALLOWLIST, async () => {
      const list = words(asTyped(request.body, 'allowlist'));
      new Problems()
        .add('allowlist', listProblem(list, AllowlistBodySchema.properties.allowlist))
        .throwAny();
      await deps.accounts.setAllowlist(signedIn(request).principal, list, request.ip);
      return tools.redirect(reply, '/account?done=allowlist');
    }),
  );
}
