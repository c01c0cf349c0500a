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

/** A route's authentication declaration, read from its `config` by every path. */
export function routeAuth(config: unknown): RouteAuth {
  return config ?? {};
}

/**
 * Who is calling, from the Authorization header and the client address; throws (or rejects
 * with) the 401 or 403 problem. Synchronous when it can be (no header, a key in memory).
 */
export type Authenticate = (
  authorization: string | undefined,
  ip: string,
  route: RouteAuth,
) => Principal | Promise<Principal>;

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
export function authenticator(credentials: CredentialResolver, free: Plan): Authenticate {
  return (authorization, ip, route) => {
    if (authorization === undefined) {
      if (route.account === true) {
        throw new AppError(
          'UNAUTHENTICATED',
          'This endpoint needs a session token or an API key.',
          {
            headers: { 'www-authenticate': 'Bearer realm="salary-api"' },
          },
        );
      }
      return {
        kind: 'anonymous',
        plan: free,
        accountId: null,
        keyId: null,
        sessionId: null,
        scopes: null,
        allowlists: [],
        responseSchema: null,
        limitBucket: addressBucket(ip),
      } satisfies Principal;
    }
    const match = BEARER.exec(authorization);
    if (match === null) {
      throw unauthenticated(
        'The Authorization header must be "Bearer <API key>".',
        'invalid_request',
      );
    }
    const resolved = credentials.resolve(match[1] as string);
    if (resolved instanceof Promise) return resolved.then((p) => admit(ip, route, p));
    return admit(ip, route, resolved);
  };
}

/** The same for every unknown token: built once, so a flood of them builds nothing. */
const INVALID_TOKEN = unauthenticated(
  'The credential is not valid: it is unknown, revoked or expired.',
  'invalid_token',
);

function admit(ip: string, route: RouteAuth, principal: Principal | undefined): Principal {
  if (principal === undefined) throw INVALID_TOKEN;
  if (principal.allowlists.some((list) => !list.matches(ip))) {
    throw new AppError(
      'ADDRESS_NOT_ALLOWED',
      `Requests from ${ip} are not on this key's or account's IP allowlist.`,
      {
        extensions: { address: ip },
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
  return principal;
}
