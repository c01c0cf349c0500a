import type { FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_TTL_MS } from '../accounts/index.js';
import type { CredentialResolver, Principal } from '../auth/index.js';
import type { PageCookie } from '../http/form-protection.js';

export const SESSION_COOKIE = 'salary_session';
export const SESSION_COOKIE_AGE_S = Math.floor(SESSION_TTL_MS / 1000);
/** The browser's CSRF secret: every form's token is made from it (see http/form-protection.ts). */
export const FORM_COOKIE = 'salary_form';
/** As long as a session, so a signed-in page's forms stay valid for the session's whole life. */
export const FORM_COOKIE_AGE_S = SESSION_COOKIE_AGE_S;
const SESSION_PREFIX = 'sess_';

/** Every dashboard cookie: HttpOnly, SameSite=Lax, path /dashboard; Secure over https. */
export const DASHBOARD_COOKIE: PageCookie = {
  path: '/dashboard',
  httpOnly: true,
  sameSite: 'lax',
  secure: 'auto',
};

/** What the form tokens of a request without a session are bound to (the sign-in forms). */
const SIGNED_OUT = 'signed-out';

export function setCookie(reply: FastifyReply, name: string, value: string, maxAgeS: number): void {
  reply.setCookie(name, value, { ...DASHBOARD_COOKIE, maxAge: maxAgeS });
}

export function clearCookie(reply: FastifyReply, name: string): void {
  reply.clearCookie(name, DASHBOARD_COOKIE);
}

/**
 * The session behind the request's cookie, resolved as the API resolves a session token: from
 * the in-memory credential view, so an unauthenticated page costs no database round trip.
 */
export async function sessionOf(
  request: FastifyRequest,
  credentials: CredentialResolver,
): Promise<{ token: string; principal: Principal } | undefined> {
  const token = request.cookies[SESSION_COOKIE];
  if (token === undefined || !token.startsWith(SESSION_PREFIX) || token.length > 200)
    return undefined;
  const principal = await credentials.resolve(token);
  if (principal?.kind !== 'session') return undefined;
  return { token, principal };
}

/**
 * The one place a form's CSRF token is made: bound to the signed-in session's token, or, on the
 * sign-in, sign-up and recovery forms, to no session. A token of one session is refused with
 * another, and a signed-out form's token on a signed-in form.
 */
export function formToken(reply: FastifyReply, sessionToken?: string): string {
  return reply.generateCsrf({ userInfo: sessionToken ?? SIGNED_OUT });
}

/** What the form tokens of a request are checked against (see formToken). */
export function tokenBinding(sessionToken: string | undefined): string {
  return sessionToken ?? SIGNED_OUT;
}
