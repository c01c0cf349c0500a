import { createHmac, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CredentialResolver, Principal } from '../auth/index.js';
import { constantTimeEqual } from '../lib/crypto.js';
import { markup, type Html } from '../lib/html.js';

export const SESSION_COOKIE = 'salary_session';
/** The pre-session token that protects the sign-in and sign-up forms (double submit). */
export const FORM_COOKIE = 'salary_form';
const SESSION_PREFIX = 'sess_';

export function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  if (header === undefined) return cookies;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (!cookies.has(name)) cookies.set(name, value);
  }
  return cookies;
}

/** HttpOnly, SameSite=Lax, path /dashboard; Secure when the request came over https. */
export function setCookie(
  request: FastifyRequest,
  reply: FastifyReply,
  name: string,
  value: string,
  maxAgeS: number,
): void {
  const attributes = [
    `${name}=${value}`,
    'Path=/dashboard',
    'HttpOnly',
    'SameSite=Lax',
    `Max-Age=${maxAgeS}`,
  ];
  if (request.protocol === 'https') attributes.push('Secure');
  const prior = reply.getHeader('set-cookie');
  const list = prior === undefined ? [] : Array.isArray(prior) ? prior : [String(prior)];
  reply.header('set-cookie', [...list, attributes.join('; ')]);
}

export function clearCookie(request: FastifyRequest, reply: FastifyReply, name: string): void {
  setCookie(request, reply, name, '', 0);
}

/**
 * The session behind the request's cookie, resolved as the API resolves a session token: from
 * the in-memory credential view, so an unauthenticated page costs no database round trip.
 */
export async function sessionOf(
  request: FastifyRequest,
  credentials: CredentialResolver,
): Promise<{ token: string; principal: Principal } | undefined> {
  const token = parseCookies(request.headers.cookie).get(SESSION_COOKIE);
  if (token === undefined || !token.startsWith(SESSION_PREFIX) || token.length > 200)
    return undefined;
  const principal = await credentials.resolve(token);
  if (principal?.kind !== 'session') return undefined;
  return { token, principal };
}

/** The form field that carries the CSRF token: every state-changing form has it. */
export const CSRF_FIELD = '_csrf';

/** The hidden field of a form with its CSRF token. */
export function csrfField(token: string): Html {
  return markup`<input type="hidden" name="${CSRF_FIELD}" value="${token}" />`;
}

/** CSRF tokens: an HMAC of the session token (or the form cookie) under SECRET_KEY. */
export class CsrfTokens {
  constructor(private readonly secretKey: string) {}

  forSession(sessionToken: string): string {
    return this.#mac(`session:${sessionToken}`);
  }

  forForm(formCookie: string): string {
    return this.#mac(`form:${formCookie}`);
  }

  /** A fresh value for the form cookie. */
  newFormCookie(): string {
    return randomBytes(24).toString('base64url');
  }

  verify(expected: string, given: unknown): boolean {
    return typeof given === 'string' && given.length > 0 && constantTimeEqual(expected, given);
  }

  #mac(value: string): string {
    return createHmac('sha256', this.secretKey).update(value).digest('base64url');
  }
}

/**
 * A state-changing request must come from this site: an Origin header (browsers send it on
 * POST) naming another host is refused even before the token is checked.
 */
export function crossOrigin(request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return false;
  if (origin === 'null') return true;
  try {
    return new URL(origin).host !== request.host;
  } catch {
    return true;
  }
}
