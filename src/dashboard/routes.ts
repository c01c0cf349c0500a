import formbody from '@fastify/formbody';
import helmet from '@fastify/helmet';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  CredentialsSchema,
  isEmail,
  normalizeEmail,
  passwordProblem,
  TOTP_CHALLENGE_TTL_MS,
} from '../accounts/index.js';
import { AppError } from '../errors/index.js';
import { formProtection, formRefused } from '../http/form-protection.js';
import { loadAssets } from './assets.js';
import {
  flashOf,
  type DashboardDeps,
  type DashboardTools,
  signedIn,
  setSignedIn,
  signedInSession,
} from './context.js';
import { markup, type Html } from '../lib/html.js';
import {
  type FieldLabel,
  FormState,
  lengthProblem,
  newPasswordField,
  password,
  Problems,
  submit,
  text,
} from './forms.js';
import { BASE, publicPage, type Flash } from './layout.js';
import { accountPages } from './pages-account.js';
import { recoveryPages } from './pages-recovery.js';
import { billingPages } from './pages-billing.js';
import { keyPages } from './pages-keys.js';
import { overviewPage } from './pages-overview.js';
import { usagePage } from './pages-usage.js';
import { webhookPages } from './pages-webhooks.js';
import { exportPages } from './pages-exports.js';
import { oauthClientPages } from './pages-oauth.js';
import { customEndpointPages } from './pages-custom-endpoints.js';
import { compliancePages } from './pages-compliance.js';
import { slaPage } from './pages-sla.js';
import { CHALLENGE_COOKIE, codeStep } from './pages-sign-in-code.js';
import { warmUp, warmUpOverview } from './warm-up.js';
import {
  clearCookie,
  DASHBOARD_COOKIE,
  FORM_COOKIE,
  FORM_COOKIE_AGE_S,
  formToken,
  sessionOf,
  SESSION_COOKIE,
  SESSION_COOKIE_AGE_S,
  setCookie,
  csrfField,
  tokenBinding,
} from './session.js';

/**
 * The customer dashboard under /dashboard: server-rendered pages over the API's services, in
 * their own encapsulated plugin so its headers (CSP), form parsing and error pages stay here.
 */
export async function dashboardRoutes(app: FastifyInstance, deps: DashboardDeps): Promise<void> {
  // HTML pages, not API operations: kept out of the OpenAPI document.
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true };
  });
  const assets = loadAssets();

  await app.register(helmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        fontSrc: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
        objectSrc: ["'none'"],
      },
    },
    crossOriginEmbedderPolicy: false,
    // DENY, as the CSP's frame-ancestors 'none' says, for browsers that read only this header.
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'same-origin' },
  });
  await app.register(formbody, { bodyLimit: 16_384 });

  const tools: DashboardTools = {
    deps,
    send(reply, status, body) {
      return reply
        .code(status)
        .header('cache-control', 'no-store')
        .type('text/html; charset=utf-8')
        .send(body);
    },
    redirect(reply, path) {
      return reply.code(303).header('cache-control', 'no-store').redirect(`${BASE}${path}`, 303);
    },
  };

  app.setErrorHandler((error, request, reply) => {
    if (formRefused(error)) return refuseForm(reply);
    const status = (error as { statusCode?: number }).statusCode;
    const known =
      error instanceof AppError
        ? error
        : status === 413
          ? new AppError('PAYLOAD_TOO_LARGE', 'The form is too large (at most 16 KB).')
          : status === 415
            ? new AppError('UNSUPPORTED_MEDIA_TYPE', 'Forms are sent as URL-encoded data.')
            : status !== undefined && status < 500
              ? new AppError('INVALID_PARAMETER', (error as Error).message)
              : error;
    const { status: code, flash } = flashOf(request, known);
    return tools.send(
      reply,
      code,
      publicPage('Error', markup`<p><a href="${BASE}">Back to the dashboard</a></p>`, flash),
    );
  });
  // An unknown page under /dashboard is an HTML page too, not the API's problem document.
  await app.register(
    async (scope) => {
      scope.setNotFoundHandler((_request, reply) =>
        tools.send(
          reply,
          404,
          publicPage(
            'Page not found',
            markup`<p>There is no such dashboard page. <a href="${BASE}">Go to the overview</a>.</p>`,
          ),
        ),
      );
    },
    { prefix: BASE },
  );

  // Every state-changing request: from this site, with the form's CSRF token.
  await formProtection(app, {
    secretCookie: { name: FORM_COOKIE, maxAgeS: FORM_COOKIE_AGE_S, ...DASHBOARD_COOKIE },
    secretKey: deps.secretKey,
    bindingOf: (request) => tokenBinding(signedInSession(request)?.token),
  });
  /** The one answer to a refused form, whatever was wrong with it. */
  function refuseForm(reply: FastifyReply) {
    return tools.send(
      reply,
      403,
      publicPage(
        'Form refused',
        markup`<p>The form was not sent from this dashboard or has expired (CSRF protection).</p>
          <p><a href="${BASE}">Reload the dashboard</a> and try again.</p>`,
        { kind: 'error', text: 'The request was refused: its security token is missing or wrong.' },
      ),
    );
  }

  app.get('/dashboard/assets/:name', (request, reply) => {
    const asset = assets.get((request.params as { name: string }).name);
    if (asset === undefined) return reply.code(404).type('text/plain').send('Not found');
    reply.header('etag', asset.etag).header('cache-control', 'public, max-age=3600');
    if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
    return reply.type(asset.type).send(asset.body);
  });

  publicRoutes(app, tools);

  // Signed-in pages: in their own scope, behind the session hook.
  await app.register(async (signed) => {
    signed.addHook('onRequest', async (request, reply) => {
      const session = await sessionOf(request, deps.cache);
      if (session === undefined) {
        // Pages and forms alike go to the sign-in page; a form is never acted on without one.
        return tools.redirect(reply, '/sign-in');
      }
      const account = deps.cache.account(session.principal.accountId as string);
      setSignedIn(request, {
        ...session,
        page: {
          principal: session.principal,
          email: account?.row.email ?? '',
          csrf: formToken(reply, session.token),
        },
      });
    });
    signed.post('/dashboard/sign-out', async (request, reply) => {
      await deps.accounts.logOut(signedIn(request).principal.sessionId as string);
      clearCookie(reply, SESSION_COOKIE);
      return tools.redirect(reply, '/sign-in?signed-out=1');
    });
    overviewPage(signed, tools);
    usagePage(signed, tools);
    keyPages(signed, tools);
    billingPages(signed, tools);
    webhookPages(signed, tools);
    exportPages(signed, tools);
    oauthClientPages(signed, tools);
    customEndpointPages(signed, tools);
    compliancePages(signed, tools);
    slaPage(signed, tools);
    accountPages(signed, tools);
  });

  // Before the server reports ready: the first overview of a process no longer pays for
  // compiling its code and its reads' first execution (warm-up.ts). Reads only; never fails.
  app.addHook('onReady', () => warmUp(app.log, () => warmUpOverview(deps)));
}

const CREDENTIALS: Record<string, FieldLabel> = {
  email: { id: 'email', label: 'E-mail address' },
  password: { id: 'password', label: 'Password' },
};

function credentialsForm(action: 'sign-in' | 'sign-up', token: string, form: FormState): Html {
  const signUp = action === 'sign-up';
  return markup`<form method="post" action="${BASE}/${action}" class="stack">
      ${form.summary(CREDENTIALS, signUp ? 'No account created' : 'Not signed in')}
      ${csrfField(token)}
      ${form.field('email', CREDENTIALS['email']!, {
        type: 'email',
        schema: CredentialsSchema.properties.email,
        attrs: markup`autocomplete="email"`,
      })}
      ${form.field(
        'password',
        CREDENTIALS['password']!,
        signUp
          ? newPasswordField(CredentialsSchema.properties.password)
          : {
              type: 'password',
              schema: CredentialsSchema.properties.password,
              attrs: markup`autocomplete="current-password"`,
            },
      )}
      <button type="submit">${signUp ? 'Create the account' : 'Sign in'}</button>
    </form>
    <p>
      ${signUp ? markup`Have an account? <a href="${BASE}/sign-in">Sign in</a>` : markup`<a href="${BASE}/forgot-password">Forgot your password?</a> · New here? <a href="${BASE}/sign-up">Create an account</a> (Free plan)`}
    </p>`;
}

/** The e-mail address and password of a form, checked as the API's schema checks them. */
function credentials(body: unknown, signUp: boolean): { email: string; password: string } {
  const problems = new Problems();
  const email = text(body, 'email');
  problems.add('email', lengthProblem(email, CredentialsSchema.properties.email));
  if (signUp && email !== '' && !isEmail(normalizeEmail(email)))
    problems.add('email', 'is not a valid e-mail address');
  const typed = password(body, 'password', problems);
  if (signUp && typed !== '') problems.add('password', passwordProblem(typed, email));
  problems.throwAny();
  return { email, password: typed };
}

function publicRoutes(app: FastifyInstance, tools: DashboardTools): void {
  const { deps } = tools;
  /** A signed-out form's token (the secret cookie set when missing). */
  const signedOutToken = (_request: FastifyRequest, reply: FastifyReply) => formToken(reply);

  function show(
    request: FastifyRequest,
    reply: FastifyReply,
    action: 'sign-in' | 'sign-up',
    status: number,
    extra: { flash?: Flash; form?: FormState } = {},
  ) {
    const title = action === 'sign-in' ? 'Sign in' : 'Create an account';
    const form = credentialsForm(action, formToken(reply), extra.form ?? FormState.EMPTY);
    return tools.send(reply, status, publicPage(title, form, extra.flash));
  }

  function startSession(request: FastifyRequest, reply: FastifyReply, token: string) {
    setCookie(reply, SESSION_COOKIE, token, SESSION_COOKIE_AGE_S);
    return tools.redirect(reply, '');
  }

  recoveryPages(app, tools, signedOutToken);

  /** A credentials form's submit: refused, the same page with what was typed but the password. */
  const credentialsSubmit = (
    request: FastifyRequest,
    reply: FastifyReply,
    action: 'sign-in' | 'sign-up',
    run: () => Promise<FastifyReply>,
  ) =>
    submit(
      request,
      reply,
      {
        refused: (status, form) => show(request, reply, action, status, { form }),
        failed: (status, flash) => show(request, reply, action, status, { flash }),
        fields: Object.keys(CREDENTIALS),
        secrets: ['password'],
      },
      run,
    );

  app.get('/dashboard/sign-in', async (request, reply) => {
    if ((await sessionOf(request, deps.cache)) !== undefined) return tools.redirect(reply, '');
    const signedOut = (request.query as Record<string, unknown>)['signed-out'] !== undefined;
    return show(
      request,
      reply,
      'sign-in',
      200,
      signedOut ? { flash: { kind: 'ok', text: 'You are signed out.' } } : {},
    );
  });
  app.post('/dashboard/sign-in', (request, reply) =>
    credentialsSubmit(request, reply, 'sign-in', async () => {
      const signed = await deps.accounts.logIn(credentials(request.body, false), request.ip);
      if ('totp_required' in signed) {
        // The half-signed-in state: a short-lived challenge that is no session.
        const ageS = Math.floor(TOTP_CHALLENGE_TTL_MS / 1000);
        setCookie(reply, CHALLENGE_COOKIE, signed.challenge, ageS);
        return tools.redirect(reply, '/sign-in/code');
      }
      return startSession(request, reply, signed.token);
    }),
  );
  codeStep(app, tools, signedOutToken, startSession);
  app.get('/dashboard/sign-up', (request, reply) => show(request, reply, 'sign-up', 200));
  app.post('/dashboard/sign-up', (request, reply) =>
    credentialsSubmit(request, reply, 'sign-up', async () => {
      const { session } = await deps.accounts.signUp(credentials(request.body, true), request.ip);
      return startSession(request, reply, session.token);
    }),
  );
}
