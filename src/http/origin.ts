import type { FastifyRequest } from 'fastify';

/**
 * A Host header as RFC 9110 allows it: a registered name or an IP literal, then an optional
 * port. Anything else (a path, a query, spaces) is never copied into a link.
 */
const HOST = /^(?:[A-Za-z0-9._~-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/;

/**
 * The scheme and host a request was sent to (`https://api.example.com`), where links in its
 * answer point when no public base URL is configured; '' when the Host header is not a host,
 * so those links stay relative to the request.
 */
export function requestOrigin(request: FastifyRequest): string {
  return HOST.test(request.host) ? `${request.protocol}://${request.host}` : '';
}
