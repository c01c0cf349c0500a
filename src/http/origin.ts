import type { FastifyRequest } from 'fastify';

/**
 * A Host header as RFC 9110 allows it: a registered name or an IP literal, then an optional
 * port. Anything else (a path, a query, spaces) is never copied into a link.
 */
const HOST = /^(?:[A-Za-z0-9._~-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/;

/**
 * The scheme and host a request was sent to (`https://api.example.com`), where links in its
 * answer point when no public base URL is configured. Both come from the request's own headers,
 * or from X-Forwarded-Proto and X-Forwarded-Host when the peer is in TRUST_PROXY (Fastify's
 * `trustProxy`): '' when the scheme is not `http` or `https` or the host is not a host, so
 * those links stay relative to the request.
 */
export function requestOrigin(request: FastifyRequest): string {
  // A trusted proxy's X-Forwarded-Proto is copied by Fastify as sent, whatever it says.
  const scheme: string = request.protocol;
  if (scheme !== 'http' && scheme !== 'https') return '';
  return HOST.test(request.host) ? `${scheme}://${request.host}` : '';
}

/**
 * What an answer built from `requestOrigin` (or the Host header) varies on, for the `Vary`
 * header of a cacheable answer: a shared cache must not hand one caller's copy to another.
 */
export const ORIGIN_VARY = 'Host, X-Forwarded-Host, X-Forwarded-Proto';
