import { hkdfSync } from 'node:crypto';
import cookie from '@fastify/cookie';
import csrfProtection from '@fastify/csrf-protection';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** A cookie's attributes as browser pages set them (Max-Age apart). */
export interface PageCookie {
  readonly path: string;
  readonly httpOnly: true;
  readonly sameSite: 'lax' | 'strict';
  /** 'auto': Secure when the request came over https (as Fastify's `request.protocol` says). */
  readonly secure: 'auto';
}

export interface FormProtectionOptions {
  /** The cookie that holds the browser's CSRF secret, and its attributes. */
  readonly secretCookie: { readonly name: string; readonly maxAgeS: number } & PageCookie;
  /** SECRET_KEY: the tokens' HMAC key is derived from it, so no token is made without it. */
  readonly secretKey: string;
  /**
   * What a form's token is bound to for a request (a signed-in session's token; a fixed label
   * without one): a token made for one binding is refused under any other.
   */
  bindingOf(request: FastifyRequest): string;
}

/** The error a refused form is answered with; `formRefused` recognises it and the plugin's. */
const CROSS_ORIGIN = Object.assign(new Error('The form was sent from another site'), {
  statusCode: 403,
  code: 'FORM_CROSS_ORIGIN',
});
const REFUSALS = new Set([
  'FORM_CROSS_ORIGIN',
  'FST_CSRF_MISSING_SECRET',
  'FST_CSRF_INVALID_TOKEN',
]);

/** Whether an error is a refused form (another site, no secret cookie, a missing or wrong token). */
export function formRefused(error: unknown): boolean {
  return REFUSALS.has((error as { code?: unknown } | null)?.code as string);
}

/**
 * Cookies and CSRF protection for server-rendered forms, in the scope it is registered in:
 * `@fastify/cookie` parses and sets cookies; `@fastify/csrf-protection` keeps a random secret in
 * `secretCookie` and makes each form's token (`reply.generateCsrf({ userInfo })`) from it and
 * from the request's binding, under an HMAC key derived from SECRET_KEY. Every state-changing
 * request (any method but GET and HEAD) must come from this site (an Origin header naming
 * another host is refused before the token is read) and carry a token in its `_csrf` field that
 * matches the secret cookie and its own binding. A refusal reaches the scope's error handler as
 * an error `formRefused` recognises, the same for every reason, so no answer tells which.
 */
export async function formProtection(
  app: FastifyInstance,
  options: FormProtectionOptions,
): Promise<void> {
  const { name, maxAgeS, ...attributes } = options.secretCookie;
  await app.register(cookie);
  await app.register(csrfProtection, {
    cookieKey: name,
    cookieOpts: { ...attributes, maxAge: maxAgeS },
    getUserInfo: (request) => options.bindingOf(request),
    csrfOpts: {
      userInfo: true,
      hmacKey: Buffer.from(hkdfSync('sha256', options.secretKey, 'salary-api', 'form-tokens', 32)),
    },
  });
  app.addHook('preHandler', (request, reply, done) => {
    if (request.method === 'GET' || request.method === 'HEAD') return done();
    if (crossOrigin(request)) return void reply.send(CROSS_ORIGIN);
    app.csrfProtection(request, reply, done);
  });
}

/**
 * A state-changing request must come from this site: an Origin header (browsers send it on
 * POST) naming another host is refused even before the token is checked.
 */
function crossOrigin(request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return false;
  if (origin === 'null') return true;
  try {
    return new URL(origin).host !== request.host;
  } catch {
    return true;
  }
}
