import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import QRCode from 'qrcode';
import type { TotpStatus } from '../accounts/index.js';
import { actorOf } from '../auth/index.js';
import { flashOf, type DashboardTools, signedIn } from './context.js';
import { password, text } from './forms.js';
import { Html, markup } from '../lib/html.js';
import { BASE, page, time, type Flash } from './layout.js';

/** `digitsOnly`: a TOTP code only (a phone shows digits); else a recovery code is taken too. */
const codeField = (id: string, digitsOnly: boolean) =>
  markup`<label for="${id}">${digitsOnly ? 'Code from the authenticator app' : 'Code from the authenticator app, or a recovery code'}</label>
    <input
      id="${id}"
      name="code"
      type="text"
      inputmode="${digitsOnly ? 'numeric' : 'text'}"
      autocomplete="one-time-code"
      required
      maxlength="32"
    />`;

const passwordField = (id: string) =>
  markup`<label for="${id}">Password</label>
    <input id="${id}" name="password" type="password" required maxlength="256" autocomplete="current-password" />`;

/** The Account page's section: the state of two-factor sign-in and what can be done with it. */
export function twoFactorSection(status: TotpStatus, csrf: string): Html {
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
    <form method="post" action="${BASE}/account/two-factor/disable" class="stack">
      <input type="hidden" name="_csrf" value="${csrf}" />
      ${passwordField('disable_totp_password')}
      ${codeField('disable_totp_code', false)}
      <button type="submit" class="danger">Turn two-factor sign-in off</button>
    </form>`;
}

/** GET/POST /dashboard/account/two-factor…: set-up (QR code, confirmation) and turning it off. */
export function twoFactorPages(
  app: FastifyInstance,
  tools: DashboardTools,
  renderAccount: (
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    flash?: Flash,
  ) => Promise<FastifyReply>,
): void {
  const { deps } = tools;

  async function enrolPage(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    flash?: Flash,
  ) {
    const { principal, page: ctx } = signedIn(request);
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
          <form method="post" action="${BASE}/account/two-factor" class="stack">
            <input type="hidden" name="_csrf" value="${ctx.csrf}" />
            ${codeField('enable_totp_code', true)}
            ${passwordField('enable_totp_password')}
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
      page(ctx, '/account', 'Set up two-factor sign-in', content, flash),
    );
  }

  app.get('/dashboard/account/two-factor', async (request, reply) => {
    const { principal } = signedIn(request);
    const status = await deps.accounts.totpStatus(principal.accountId as string);
    if (status.enabled) return tools.redirect(reply, '/account');
    return enrolPage(request, reply, 200);
  });

  app.post('/dashboard/account/two-factor', async (request, reply) => {
    const { principal, page: ctx } = signedIn(request);
    try {
      const { recovery_codes } = await deps.accounts.enableTotp(
        principal.accountId as string,
        {
          password: password(request.body, 'password'),
          code: text(request.body, 'code').slice(0, 32),
        },
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
    } catch (error) {
      const { status, flash } = flashOf(request, error);
      return enrolPage(request, reply, status, flash);
    }
  });

  app.post('/dashboard/account/two-factor/disable', async (request, reply) => {
    const { principal } = signedIn(request);
    try {
      await deps.accounts.disableTotp(
        principal.accountId as string,
        {
          password: password(request.body, 'password'),
          code: text(request.body, 'code').slice(0, 32),
        },
        actorOf(principal),
        request.ip,
      );
      return tools.redirect(reply, '/account?done=two-factor-off');
    } catch (error) {
      const { status, flash } = flashOf(request, error);
      return renderAccount(request, reply, status, flash);
    }
  });
}
