import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  CredentialsSchema,
  isEmail,
  normalizeEmail,
  PasswordChangeSchema,
  passwordProblem,
} from '../accounts/index.js';
import { AppError } from '../errors/index.js';
import { flashOf, type DashboardTools } from './context.js';
import {
  asTyped,
  type FieldLabel,
  FormState,
  lengthProblem,
  newPasswordField,
  Problems,
  submit,
  text,
} from './forms.js';
import { markup, type Html } from '../lib/html.js';
import { csrfField } from './session.js';
import { BASE, publicPage, type Flash } from './layout.js';

const FORGOT: Record<string, FieldLabel> = {
  email: { id: 'email', label: 'E-mail address of the account' },
};
const RESET: Record<string, FieldLabel> = {
  new_password: { id: 'new_password', label: 'New password' },
};

/** A token as the mailed links carry it; anything else is not put back into a page. */
const tokenOf = (value: unknown): string =>
  typeof value === 'string' && /^[A-Za-z0-9_.-]{1,200}$/.test(value) ? value : '';

export function recoveryPages(
  app: FastifyInstance,
  tools: DashboardTools,
  formToken: (request: FastifyRequest, reply: FastifyReply) => string,
): void {
  const { deps } = tools;

  function failed(request: FastifyRequest, reply: FastifyReply, error: unknown) {
    const answer = flashOf(request, error);
    if (error instanceof AppError)
      for (const [k, v] of Object.entries(error.headers)) reply.header(k, v);
    return answer;
  }

  const forgotForm = (csrf: string, form: FormState): Html =>
    markup`<form method="post" action="${BASE}/forgot-password" class="stack">
      ${form.summary(FORGOT, 'Not sent')}
      ${csrfField(csrf)}
      ${form.field('email', FORGOT['email']!, {
        type: 'email',
        schema: CredentialsSchema.properties.email,
        attrs: markup`autocomplete="email"`,
      })}
      <button type="submit">Mail me a link</button>
    </form>
    <p>We mail a link that works once, for one hour. <a href="${BASE}/sign-in">Back to sign-in</a></p>`;

  const showForgot = (
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    extra: { flash?: Flash; form?: FormState } = {},
  ) =>
    tools.send(
      reply,
      status,
      publicPage(
        'Forgot your password?',
        forgotForm(formToken(request, reply), extra.form ?? FormState.EMPTY),
        extra.flash,
      ),
    );

  app.get('/dashboard/forgot-password', (request, reply) => showForgot(request, reply, 200));
  app.post('/dashboard/forgot-password', (request, reply) =>
    submit(
      request,
      reply,
      {
        refused: (status, form) => showForgot(request, reply, status, { form }),
        failed: (status, flash) => showForgot(request, reply, status, { flash }),
        fields: Object.keys(FORGOT),
      },
      async () => {
        const email = text(request.body, 'email');
        const problems = new Problems();
        problems.add(
          'email',
          lengthProblem(email, CredentialsSchema.properties.email) ||
            (isEmail(normalizeEmail(email)) ? '' : 'is not a valid e-mail address'),
        );
        problems.throwAny();
        await deps.accounts.requestPasswordReset(email, request.ip);
        return showForgot(request, reply, 200, {
          flash: {
            kind: 'ok',
            text: 'If an account has this address, a link to choose a new password is on its way. It works once, for one hour.',
          },
        });
      },
    ),
  );

  const resetForm = (csrf: string, token: string, form: FormState): Html =>
    markup`<form method="post" action="${BASE}/reset-password" class="stack">
      ${form.summary(RESET, 'Not changed')}
      ${csrfField(csrf)}
      <input type="hidden" name="token" value="${token}" />
      ${form.field(
        'new_password',
        RESET['new_password']!,
        newPasswordField(
          PasswordChangeSchema.properties.new_password,
          'Every session of the account is signed out; API keys keep working.',
        ),
      )}
      <button type="submit">Set the new password</button>
    </form>`;

  const showReset = (
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    token: string,
    extra: { flash?: Flash; form?: FormState } = {},
  ) =>
    tools.send(
      reply,
      status,
      publicPage(
        'Choose a new password',
        token === ''
          ? markup`<p>This page is opened from the link we mail. <a href="${BASE}/forgot-password">Ask for a link</a>.</p>`
          : resetForm(formToken(request, reply), token, extra.form ?? FormState.EMPTY),
        extra.flash,
      ),
    );

  /** The page of a link that was used already, has expired or is incomplete. */
  const linkNotValid = (reply: FastifyReply, status: number, flash: Flash) =>
    tools.send(
      reply,
      status,
      publicPage(
        'Link not valid',
        markup`<p>The link was used already, has expired (after one hour) or is incomplete. <a href="${BASE}/forgot-password">Ask for a new link</a>.</p>`,
        flash,
      ),
    );

  app.get('/dashboard/reset-password', (request, reply) =>
    showReset(request, reply, 200, tokenOf((request.query as Record<string, unknown>).token)),
  );
  app.post('/dashboard/reset-password', (request, reply) => {
    const token = tokenOf(text(request.body, 'token'));
    return submit(
      request,
      reply,
      {
        refused: (status, form) =>
          form.problems.has('token')
            ? linkNotValid(reply, status, {
                kind: 'error',
                text: `The link ${form.problems.get('token') ?? 'is not valid'}.`,
              })
            : showReset(request, reply, status, token, { form }),
        failed: (status, flash) => showReset(request, reply, status, token, { flash }),
        fields: [...Object.keys(RESET), 'token'],
        secrets: ['new_password'],
      },
      async () => {
        const typed = asTyped(request.body, 'new_password');
        const problems = new Problems();
        // The e-mail address is known once the token is redeemed; the service checks it then.
        problems.add(
          'new_password',
          lengthProblem(typed, PasswordChangeSchema.properties.new_password) ||
            passwordProblem(typed, ''),
        );
        problems.throwAny();
        await deps.accounts.resetPassword({ token, new_password: typed }, request.ip);
        return tools.send(
          reply,
          200,
          publicPage(
            'Password changed',
            markup`<p><a href="${BASE}/sign-in">Sign in</a> with the new password.</p>`,
            { kind: 'ok', text: 'Your password was changed and every session was signed out.' },
          ),
        );
      },
    );
  });

  // The link only shows a button: mail scanners that open links confirm nothing.
  app.get('/dashboard/verify-email', (request, reply) => {
    const token = tokenOf((request.query as Record<string, unknown>).token);
    return tools.send(
      reply,
      200,
      publicPage(
        'Confirm your e-mail address',
        token === ''
          ? markup`<p>This page is opened from the link we mail. Ask for a new one on the <a href="${BASE}/account">Account</a> page.</p>`
          : markup`<form method="post" action="${BASE}/verify-email" class="stack">
              ${csrfField(formToken(request, reply))}
              <input type="hidden" name="token" value="${token}" />
              <p>Confirm that this address belongs to your account. Paid plans and API keys need it.</p>
              <button type="submit">Confirm my address</button>
            </form>`,
      ),
    );
  });
  app.post('/dashboard/verify-email', async (request, reply) => {
    const token = tokenOf(text(request.body, 'token'));
    try {
      const account = await deps.accounts.verifyEmail(token, request.ip);
      return tools.send(
        reply,
        200,
        publicPage(
          'Address confirmed',
          markup`<p>${account.email} is confirmed. <a href="${BASE}">Go to the dashboard</a>.</p>`,
          { kind: 'ok', text: 'Thank you: your e-mail address is confirmed.' },
        ),
      );
    } catch (error) {
      const { status, flash } = failed(request, reply, error);
      return tools.send(
        reply,
        status,
        publicPage(
          'Link not valid',
          markup`<p>The link was used already, has expired (after seven days) or is incomplete. Ask for a new one on the <a href="${BASE}/account">Account</a> page.</p>`,
          flash,
        ),
      );
    }
  });
}
