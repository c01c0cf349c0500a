import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  HookHandlerDoneFunction,
  onRequestHookHandler,
} from 'fastify';
import {
  addressBucket,
  allowlistOwner,
  credentialName,
  type AuthenticatedRoute,
  type CredentialRequest,
  type CredentialResolver,
  type CredentialScheme,
  type Principal,
} from '../auth/index.js';
import { AppError } from '../errors/index.js';
import type { Plan } from '../plans/index.js';
import { sendRefusal } from './problem.js';
import { hookList } from './route-hooks.js';

// Up to 2048 characters: API keys and session tokens, and OAuth access tokens (JWTs). The
// scheme name is case-insensitive (RFC 9110 §11.1): `bearer` and `BEARER` are Bearer; one or
// more spaces follow it (RFC 9110 §11.4).
const BEARER = /^Bearer +([A-Za-z0-9._~+/=-]{1,2048})$/i;
// A DPoP-bound OAuth access token (RFC 9449); the scheme name is case-insensitive.
const DPOP = /^DPoP +([A-Za-z0-9._~+/=-]{1,2048})$/i;

/**
 * Who is calling, from the Authorization header and the client address, or the 401 or 403
 * problem to answer. The problem is returned, not thrown, as the quota returns its 429 (where
 * a throw per request was measured at a tenth of a refusal's cost): a flood of unknown
 * credentials is the refusal an attacker repeats most cheaply. A credential resolver's own
 * fault, or a refusal it decides (a DPoP proof), may still throw or reject. Synchronous when it
 * can be (no header, a key in memory).
 */
export type Authenticate = (
  authorization: string | undefined,
  ip: string,
  route: AuthenticatedRoute,
  /** The request itself (node's IncomingMessage), which a DPoP proof is checked against. */
  request?: CredentialRequest,
) => Admitted | Promise<Admitted>;

/** The caller, or the 401/403 problem to answer. */
export type Admitted = Principal | AppError;

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
export function authenticator(
  credentials: CredentialResolver,
  free: Plan,
  /** The 401 for an unknown token sent with the DPoP scheme (its challenge names DPoP). */
  dpopInvalid: AppError,
): Authenticate {
  /** Anonymous callers by address: one principal (and limit bucket name) each, reused. */
  const callers = new Map<string, Principal>();
  return (authorization, ip, route, request) => {
    if (authorization === undefined) {
      if (route.access === 'account') return CREDENTIAL_REQUIRED;
      let anonymous = callers.get(ip);
      if (anonymous === undefined) {
        anonymous = Object.freeze({
          kind: 'anonymous',
          plan: free,
          accountId: null,
          keyId: null,
          sessionId: null,
          scopes: null,
          allowlists: [],
          responseSchema: null,
          limitBucket: addressBucket(ip),
        } satisfies Principal);
        if (callers.size >= ANONYMOUS_REMEMBERED) callers.clear();
        callers.set(ip, anonymous);
      }
      return anonymous;
    }
    let scheme: CredentialScheme = 'Bearer';
    let match = BEARER.exec(authorization);
    if (match === null) {
      match = DPOP.exec(authorization);
      scheme = 'DPoP';
    }
    if (match === null) return MALFORMED_AUTHORIZATION;
    const resolved = credentials.resolve(match[1] as string, scheme, request);
    const invalid = scheme === 'Bearer' ? INVALID_TOKEN : dpopInvalid;
    if (resolved instanceof Promise) return resolved.then((p) => admit(ip, route, p, invalid));
    return admit(ip, route, resolved, invalid);
  };
}

/** Anonymous principals remembered; beyond, the map starts again (a flood of addresses). */
const ANONYMOUS_REMEMBERED = 10_000;

/** The same for every unknown token: built once, so a flood of them builds nothing. */
const INVALID_TOKEN = unauthenticated(
  'The credential is not valid: it is unknown, revoked or expired.',
  'invalid_token',
);
const CREDENTIAL_REQUIRED = new AppError(
  'UNAUTHENTICATED',
  'This endpoint needs a session token or an API key.',
  { headers: { 'www-authenticate': 'Bearer realm="salary-api"' } },
);
const MALFORMED_AUTHORIZATION = unauthenticated(
  'The Authorization header must be "Bearer <credential>" (an API key, a session token or an OAuth access token) or "DPoP <access token>".',
  'invalid_request',
);

/** A resolved credential, or the 401 to answer when none resolved. */
function admit(
  ip: string,
  route: AuthenticatedRoute,
  principal: Principal | undefined,
  invalid: AppError,
): Admitted {
  return principal === undefined ? invalid : checkAccess(ip, route, principal);
}

/**
 * The allowlist (403) and scope (403) checks of a known caller on a route; any way in that
 * answers a route's twin (the MCP tools) checks with this.
 */
export function checkAccess(ip: string, route: AuthenticatedRoute, principal: Principal): Admitted {
  const bound = principal.kind !== 'session' || route.access === 'data';
  if (bound && principal.allowlists.some((list) => !list.matches(ip))) {
    return new AppError(
      'ADDRESS_NOT_ALLOWED',
      `Requests from ${ip} are not on ${allowlistOwner(principal)}.`,
      {
        extensions: { address: ip },
      },
    );
  }
  if (principal.mode === 'test' && !openToTestMode(route)) return TEST_MODE_REFUSED;
  if (principal.scopes !== null && !principal.scopes.has(route.scope)) {
    return new AppError(
      'SCOPE_MISSING',
      `This ${credentialName(principal)} lacks the scope ${route.scope}.`,
      { extensions: { required_scope: route.scope } },
    );
  }
  return principal;
}

/** Marks every answer to a test-mode key (docs/test-mode.md). */
export const MODE_HEADER = 'key-mode';

/**
 * What a test-mode key may call: the routes that read figures (data access, scope salary:read).
 * Everything else creates, bills or reveals account state (keys, usage, webhooks, exports,
 * bulk lookups) and is for live keys and sessions only.
 */
function openToTestMode(route: AuthenticatedRoute): boolean {
  return route.access === 'data' && route.scope === 'salary:read';
}

const TEST_MODE_REFUSED = new AppError(
  'TEST_MODE_NOT_ALLOWED',
  'Test-mode keys (sk_test_…) may only read figures (endpoints with the salary:read scope); use a live key or a session here.',
  { headers: { [MODE_HEADER]: 'test' }, extensions: { mode: 'test' } },
);

/** Where routes must declare `config.auth`: every route of the API. */
export const DECLARED_PREFIX = '/api/';

/**
 * Authentication decided by the matched route: every route registered from now on under
 * /api/ must declare `config.auth` (registration fails otherwise), and each one that is not
 * public gets the authentication hook as its first own onRequest hook, which sets
 * `request.principal` or answers the 401 or 403 before anything of the route runs. A request
 * whose path matches no route (however it is encoded) reaches no handler that needs one.
 */
export function authenticateByRoute(app: FastifyInstance, authenticate: Authenticate): void {
  app.addHook('onRoute', (route) => {
    const auth = route.config?.auth;
    if (auth === undefined) {
      if (route.url.startsWith(DECLARED_PREFIX))
        throw new Error(`${String(route.method)} ${route.url} declares no config.auth`);
      return;
    }
    if (auth.access === 'public') return;
    route.onRequest = [authenticationHook(authenticate, auth), ...hookList(route.onRequest)];
  });
}

function authenticationHook(
  authenticate: Authenticate,
  auth: AuthenticatedRoute,
): onRequestHookHandler {
  const admitted = (
    request: FastifyRequest,
    reply: FastifyReply,
    done: HookHandlerDoneFunction,
    a: Admitted,
  ) => {
    // Answered here, and the route's other hooks and handler never run (done is not called).
    if (a instanceof AppError) return sendRefusal(request, reply, a);
    request.principal = a;
    if (a.mode === 'test') reply.header(MODE_HEADER, 'test');
    done();
  };
  return (request, reply, done) => {
    let principal: Admitted | Promise<Admitted>;
    try {
      principal = authenticate(request.headers.authorization, request.ip, auth, request.raw);
    } catch (error) {
      done(error as Error);
      return;
    }
    if (principal instanceof Promise)
      principal.then((a) => admitted(request, reply, done, a), done);
    else admitted(request, reply, done, principal);
  };
}
