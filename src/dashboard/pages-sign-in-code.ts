import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors/index.js';
import { flashOf, type DashboardTools } from './context.js';
import { text } from './forms.js';
import { markup } from '../lib/html.js';
import { BASE, publicPage, type Flash } from './layout.js';
import { clearCookie } from './session.js';

/** The challenge between a correct password and the code (a short-lived token, no session). */
export const CHALLENGE_COOKIE = 'salary_2fa';

/** GET/POST /dashboard/sign-in/code: the second step of a sign-in with two-factor on. */
export function codeStep(
  app: FastifyInstance,
  tools: DashboardTools,
  formToken: (request: FastifyRequest, reply: FastifyReply) => string,
  startSession: (request: FastifyRequest, reply: FastifyReply, token: string) => FastifyReply,
): void {
  const { deps } = tools;
  const challengeOf = (request: FastifyRequest): string | undefined => {
    const value = request.cookies[CHALLENGE_COOKIE];
    return value !== undefined && /^tfa_[A-Za-z0-9_-]{43}$/.test(value) ? value : undefined;
  };

  function show(request: FastifyRequest, reply: FastifyReply, status: number, flash?: Flash) {
    const form = markup`<p>Enter the 6-digit code your authenticator app shows now, or one of your recovery codes.</p>
      <form method="post" action="${BASE}/sign-in/code" class="stack">
        <input type="hidden" name="_csrf" value="${formToken(request, reply)}" />
        <label for="code">Code</label>
        <input
          id="code"
          name="code"
          type="text"
          autocomplete="one-time-code"
          required
          maxlength="32"
          autofocus
        />
        <button type="submit">Sign in</button>
      </form>
      <p class="muted">The code step lasts five minutes. Lost your device and your recovery codes? Contact support. <a href="${BASE}/sign-in">Start again</a></p>`;
    return tools.send(reply, status, publicPage('Two-factor sign-in', form, flash));
  }

  app.get('/dashboard/sign-in/code', (request, reply) =>
    challengeOf(request) === undefined
      ? tools.redirect(reply, '/sign-in')
      : show(request, reply, 200),
  );
  app.post('/dashboard/sign-in/code', async (request, reply) => {
    const challenge = challengeOf(request);
    if (challenge === undefined) return tools.redirect(reply, '/sign-in');
    try {
      const session = await deps.accounts.logInWithCode(
        { challenge, code: text(request.body, 'code').slice(0, 32) },
        request.ip,
      );
      clearCookie(reply, CHALLENGE_COOKIE);
      return startSession(request, reply, session.token);
    } catch (error) {
      const { status, flash } = flashOf(request, error);
      if (error instanceof AppError)
        for (const [k, v] of Object.entries(error.headers)) reply.header(k, v);
      return show(request, reply, status, flash);
    }
  });
}
