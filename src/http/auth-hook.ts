import type { FastifyRequest } from 'fastify';
import {
  addressBucket,
  type CredentialResolver,
  type Principal,
  type Scope,
} from '../auth/index.js';
import { AppError } from '../errors/index.js';
import type { Plan } from '../plans/index.js';

const BEARER = /^Bearer ([A-Za-z0-9._~+/=-]{1,512})$/;

/** What a route asks of the caller, in its `config`. */
export interface RouteAuth {
  /** The scope a scoped (Enterprise) key needs for this route. */
  scope?: Scope;
  /** true: anonymous callers get 401 (account management). */
  account?: boolean;
}

function unauthenticated(detail: string, error: 'invalid_request' | 'invalid_token'): AppError {
  return new AppError('UNAUTHENTICATED', detail, {
    headers: { 'www-authenticate': `Bearer realm="salary-api", error="${error}"` },
  });
}

/**
 * Decides who is calling. No Authorization header: an anonymous Free caller, counted by
 * address. A header that is not a live credential is always 401, never silently Free. Then
 * the allowlists (403) and the route's scope (403).
 */
export function authenticator(credentials: CredentialResolver, free: Plan) {
  // Synchronous when it can be (no header, a key in memory): no promise on the hot path.
  return (request: FastifyRequest): void | Promise<void> => {
    const route = request.routeOptions.config as RouteAuth;
    const header = request.headers.authorization;
    if (header === undefined) {
      if (route.account === true) {
        throw new AppError(
          'UNAUTHENTICATED',
          'This endpoint needs a session token or an API key.',
          {
            headers: { 'www-authenticate': 'Bearer realm="salary-api"' },
          },
        );
      }
      request.principal = {
        kind: 'anonymous',
        plan: free,
        accountId: null,
        keyId: null,
        sessionId: null,
        scopes: null,
        allowlists: [],
        responseSchema: null,
        limitBucket: addressBucket(request.ip),
      } satisfies Principal;
      return;
    }
    const match = BEARER.exec(header);
    if (match === null) {
      throw unauthenticated(
        'The Authorization header must be "Bearer <API key>".',
        'invalid_request',
      );
    }
    const resolved = credentials.resolve(match[1] as string);
    if (resolved instanceof Promise) return resolved.then((p) => admit(request, route, p));
    admit(request, route, resolved);
  };
}

function admit(request: FastifyRequest, route: RouteAuth, principal: Principal | undefined): void {
  if (principal === undefined) {
    throw unauthenticated(
      'The credential is not valid: it is unknown, revoked or expired.',
      'invalid_token',
    );
  }
  if (principal.allowlists.some((list) => !list.matches(request.ip))) {
    throw new AppError(
      'ADDRESS_NOT_ALLOWED',
      `Requests from ${request.ip} are not on this key's or account's IP allowlist.`,
      {
        extensions: { address: request.ip },
      },
    );
  }
  if (
    route.scope !== undefined &&
    principal.scopes !== null &&
    !principal.scopes.has(route.scope)
  ) {
    throw new AppError('SCOPE_MISSING', `This API key lacks the scope ${route.scope}.`, {
      extensions: { required_scope: route.scope },
    });
  }
  request.principal = principal;
}
