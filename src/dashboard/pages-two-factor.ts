import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import QRCode from 'qrcode';
import { CredentialsSchema, TotpCodeBodySchema, type TotpStatus } from '../accounts/index.js';
import { actorOf } from '../auth/index.js';
import { type DashboardTools, signedIn } from './context.js';
import {
  type FieldLabel,
  submitOnPage,
  FormState,
  lengthProblem,
  password,
  Problems,
  submit,
  text,
} from './forms.js';
import { Html, markup } from '../lib/html.js';
import { BASE, page, time, type Flash } from './layout.js';
import type { RenderAccount } from './account-render.js';
import { csrfField } from './session.js';

const CODE = 'Code from the authenticator app';
const ENABLE: Record<string, FieldLabel> = {
  code: { id: 'enable_totp_code', label: CODE },
  password: { id: 'enable_totp_password', label: 'Password' },
};
const DISABLE: Record<string, FieldLabel> = {
  password: { id: 'disable_totp_password', label: 'Password' },
  code: { id: 'disable_totp_code', label: `${CODE}, or a recovery code` },
};
/** Neither is sent back: a password, and a code that is stale by the time it is read again. */
const SECRETS = ['password', 'code'];

/** The code and password of a form, checked as the API's schemas check them. */
function typed(body: unknown): { code: string; password: string } {
  const problems = new Problems();
  const code = text(body, 'code');
  problems.add('code', lengthProblem(code, TotpCodeBodySchema.properties.code));
  const typedPassword = password(body, 'password', problems);
  problems.throwAny();
  return { code, password: typedPassword };
}

/** `digitsOnly`: a TOTP code only (a phone shows digits); else a recovery code is taken too. */
const codeField = (form: FormState, at: FieldLabel, digitsOnly: boolean) =>
  form.field('code', at, {
    schema: TotpCodeBodySchema.properties.code,
    attrs: markup`inputmode="${digitsOnly ? 'numeric' : 'text'}" autocomplete="one-time-code"`,
  });

const passwordField = (form: FormState, at: FieldLabel) =>
  form.field('password', at, {
    type: 'password',
    schema: CredentialsSchema.properties.password,
    attrs: markup`autocomplete="current-password"`,
  });

/** The Account page's section: the state of two-factor sign-in and what can be done with it. */
export function twoFactorSection(status: TotpStatus, csrf: string, form: FormState): Html {
  if (!status.enabled)
    return markup`<h2>Two-factor sign-in</h2>
      <p>
        Off. With it on, signing in to the dashboard asks for a code from an authenticator app
        (TOTP) after the password.
      </p>
      <p><a href="${BASE}/account/two-factor">Set up two-factor sign-in</a></p>`;
  return markup`<h2>Two-factor sign-in</h2>
    <p id="two-factor-state">
      On since ${time(status.enabled_at)}; ${status.recovery_codes_left} unused recovery codes.
    </p>
    <form method="post" action="${BASE}/account/two-factor/disable" class="stack" id="two-factor-off-form">
      ${form.summary(DISABLE)}
      ${csrfField(csrf)}
      ${passwordField(form, DISABLE['password']!)}
      ${codeField(form, DISABLE['code']!, false)}
      <button type="submit" class="danger">Turn two-factor sign-in off</button>
    </form>`;
}

/** GET/POST /dashboard/account/two-factor…: set-up (QR code, confirmation) and turning it off. */
export function twoFactorPages(
  app: FastifyInstance,
  tools: DashboardTools,
  renderAccount: RenderAccount,
): void {
  const { deps } = tools;

  async function enrolPage(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    extra: { flash?: Flash; form?: FormState } = {},
  ) {
    const { principal, page: ctx } = signedIn(request);
    const form = extra.form ?? FormState.EMPTY;
    const { secret, uri } = await deps.accounts.beginTotp(principal.accountId as string);
    const qr = await QRCode.toString(uri, {
      type: 'svg',
      errorCorrectionLevel: 'M',
      margin: 4,
      width: 200,
    });
    const grouped = secret.match(/.{1,4}/g)?.join(' ') ?? secret;
    const content = markup`<ol class="stack">
        <li>
          <p>Scan this code with an authenticator app (any app for TOTP codes).</p>
          <div class="qr" role="img" aria-label="QR code of the two-factor secret">${new Html(qr)}</div>
        </li>
        <li>
          <p>Or type the secret in: <code id="totp-secret">${grouped}</code></p>
        </li>
        <li>
          <p>Confirm with the code the app shows now and your password.</p>
          <form method="post" action="${BASE}/account/two-factor" class="stack" id="two-factor-form">
            ${form.summary(ENABLE)}
            ${csrfField(ctx.csrf)}
            ${codeField(form, ENABLE['code']!, true)}
            ${passwordField(form, ENABLE['password']!)}
            <button type="submit">Turn two-factor sign-in on</button>
          </form>
        </li>
      </ol>
      <p class="muted">
        Until it is confirmed, two-factor sign-in stays off. <a href="${BASE}/account">Back to the account</a>
      </p>`;
    return tools.send(
      reply,
      status,
      page(ctx, '/account', 'Set up two-factor sign-in', content, extra.flash),
    );
  }

  app.get('/dashboard/account/two-factor', async (request, reply) => {
    const { principal } = signedIn(request);
    const status = await deps.accounts.totpStatus(principal.accountId as string);
    if (status.enabled) return tools.redirect(reply, '/account');
    return enrolPage(request, reply, 200);
  });

  app.post('/dashboard/account/two-factor', (request, reply) =>
    submit(
      request,
      reply,
      {
        refused: (status, form) => enrolPage(request, reply, status, { form }),
        failed: (status, flash) => enrolPage(request, reply, status, { flash }),
        fields: Object.keys(ENABLE),
        secrets: SECRETS,
      },
      async () => {
        const { principal, page: ctx } = signedIn(request);
        const { recovery_codes } = await deps.accounts.enableTotp(
          principal.accountId as string,
          typed(request.body),
          actorOf(principal),
          request.ip,
        );
        const content = markup`<p>
            Two-factor sign-in is on. Keep these recovery codes somewhere safe: each one signs in
            once in place of a code, if the device is lost. They are shown only now.
          </p>
          <ul id="recovery-codes" class="codes">
            ${recovery_codes.map((c) => markup`<li><code>${c}</code></li>`)}
          </ul>
          <p><a href="${BASE}/account">Back to the account</a></p>`;
        return tools.send(
          reply,
          200,
          page(ctx, '/account', 'Recovery codes', content, {
            kind: 'ok',
            text: 'Two-factor sign-in was turned on.',
          }),
        );
      },
    ),
  );

  app.post('/dashboard/account/two-factor/disable', (request, reply) =>
    submitOnPage(
      request,
      reply,
      renderAccount,
      { of: 'two-factor-off', labels: DISABLE, secrets: SECRETS },
      async () => {
        const { principal } = signedIn(request);
        await deps.accounts.disableTotp(
          principal.accountId as string,
          typed(request.body),
          actorOf(principal),
          request.ip,
        );
        return tools.redirect(reply, '/account?done=two-factor-off');
      },
    ),
  );
}
