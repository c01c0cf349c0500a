import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors/index.js';
import { flashOf, type DashboardTools } from './context.js';
import { password, text } from './forms.js';
import { markup, type Html } from '../lib/html.js';
import { BASE, publicPage, type Flash } from './layout.js';

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

  const forgotForm = (csrf: string, email: string): Html =>
    markup`<form method="post" action="${BASE}/forgot-password" class="stack">
      <input type="hidden" name="_csrf" value="${csrf}" />
      <label for="email">E-mail address of the account</label>
      <input id="email" name="email" type="email" autocomplete="email" required maxlength="254" value="${email}" />
      <button type="submit">Mail me a link</button>
    </form>
    <p>We mail a link that works once, for one hour. <a href="${BASE}/sign-in">Back to sign-in</a></p>`;

  const showForgot = (
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    email: string,
    flash?: Flash,
  ) =>
    tools.send(
      reply,
      status,
      publicPage('Forgot your password?', forgotForm(formToken(request, reply), email), flash),
    );

  app.get('/dashboard/forgot-password', (request, reply) => showForgot(request, reply, 200, ''));
  app.post('/dashboard/forgot-password', async (request, reply) => {
    const email = text(request.body, 'email').slice(0, 254);
    try {
      await deps.accounts.requestPasswordReset(email, request.ip);
      return showForgot(request, reply, 200, '', {
        kind: 'ok',
        text: 'If an account has this address, a link to choose a new password is on its way. It works once, for one hour.',
      });
    } catch (error) {
      const { status, flash } = failed(request, reply, error);
      return showForgot(request, reply, status, email, flash);
    }
  });

  const resetForm = (csrf: string, token: string): Html =>
    markup`<form method="post" action="${BASE}/reset-password" class="stack">
      <input type="hidden" name="_csrf" value="${csrf}" />
      <input type="hidden" name="token" value="${token}" />
      <label for="new_password">New password</label>
      <input id="new_password" name="new_password" type="password" required minlength="12" maxlength="256"
        autocomplete="new-password" aria-describedby="password-help" />
      <p id="password-help" class="muted">At least 12 characters, not a common password and not your e-mail address. Every session of the account is signed out; API keys keep working.</p>
      <button type="submit">Set the new password</button>
    </form>`;

  const showReset = (
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    token: string,
    flash?: Flash,
  ) =>
    tools.send(
      reply,
      status,
      publicPage(
        'Choose a new password',
        token === ''
          ? markup`<p>This page is opened from the link we mail. <a href="${BASE}/forgot-password">Ask for a link</a>.</p>`
          : resetForm(formToken(request, reply), token),
        flash,
      ),
    );

  app.get('/dashboard/reset-password', (request, reply) =>
    showReset(request, reply, 200, tokenOf((request.query as Record<string, unknown>).token)),
  );
  app.post('/dashboard/reset-password', async (request, reply) => {
    const token = tokenOf(text(request.body, 'token'));
    try {
      await deps.accounts.resetPassword(
        { token, new_password: password(request.body, 'new_password') },
        request.ip,
      );
      return tools.send(
        reply,
        200,
        publicPage(
          'Password changed',
          markup`<p><a href="${BASE}/sign-in">Sign in</a> with the new password.</p>`,
          { kind: 'ok', text: 'Your password was changed and every session was signed out.' },
        ),
      );
    } catch (error) {
      const { status, flash } = failed(request, reply, error);
      const tokenRefused =
        error instanceof AppError &&
        (error.extensions.invalid_params as { name: string }[] | undefined)?.[0]?.name === 'token';
      return tokenRefused
        ? tools.send(
            reply,
            status,
            publicPage(
              'Link not valid',
              markup`<p>The link was used already, has expired (after one hour) or is incomplete. <a href="${BASE}/forgot-password">Ask for a new link</a>.</p>`,
              flash,
            ),
          )
        : showReset(request, reply, status, token, flash);
    }
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
              <input type="hidden" name="_csrf" value="${formToken(request, reply)}" />
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
