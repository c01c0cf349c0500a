import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { TotpCodeBodySchema } from '../accounts/index.js';
import { type DashboardTools } from './context.js';
import { type FieldLabel, FormState, lengthProblem, Problems, submit, text } from './forms.js';
import { markup } from '../lib/html.js';
import { BASE, publicPage, type Flash } from './layout.js';
import { clearCookie, csrfField } from './session.js';

/** The challenge between a correct password and the code (a short-lived token, no session). */
export const CHALLENGE_COOKIE = 'salary_2fa';

const CODE: Record<string, FieldLabel> = { code: { id: 'code', label: 'Code' } };

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

  function show(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    extra: { flash?: Flash; form?: FormState } = {},
  ) {
    const form = extra.form ?? FormState.EMPTY;
    const content = markup`<p>Enter the 6-digit code your authenticator app shows now, or one of your recovery codes.</p>
      <form method="post" action="${BASE}/sign-in/code" class="stack">
        ${form.summary(CODE, 'Not signed in')}
        ${csrfField(formToken(request, reply))}
        ${form.field('code', CODE['code']!, {
          schema: TotpCodeBodySchema.properties.code,
          attrs: markup`autocomplete="one-time-code" ${form.refusedSubmit ? '' : markup`autofocus`}`,
        })}
        <button type="submit">Sign in</button>
      </form>
      <p class="muted">The code step lasts five minutes. Lost your device and your recovery codes? Contact support. <a href="${BASE}/sign-in">Start again</a></p>`;
    return tools.send(reply, status, publicPage('Two-factor sign-in', content, extra.flash));
  }

  app.get('/dashboard/sign-in/code', (request, reply) =>
    challengeOf(request) === undefined
      ? tools.redirect(reply, '/sign-in')
      : show(request, reply, 200),
  );
  app.post('/dashboard/sign-in/code', (request, reply) => {
    const challenge = challengeOf(request);
    if (challenge === undefined) return tools.redirect(reply, '/sign-in');
    return submit(
      request,
      reply,
      {
        refused: (status, form) => show(request, reply, status, { form }),
        failed: (status, flash) => show(request, reply, status, { flash }),
        fields: Object.keys(CODE),
        // A code is stale by the time it would be read again.
        secrets: ['code'],
      },
      async () => {
        const code = text(request.body, 'code');
        new Problems()
          .add('code', lengthProblem(code, TotpCodeBodySchema.properties.code))
          .throwAny();
        const session = await deps.accounts.logInWithCode({ challenge, code }, request.ip);
        clearCookie(reply, CHALLENGE_COOKIE);
        return startSession(request, reply, session.token);
      },
    );
  });
}
