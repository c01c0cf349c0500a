import type { Scope } from './principal.js';

/**
 * What a route asks of its caller, declared once per route in its Fastify `config.auth` and
 * read from the matched route by every path that decides a request (the authentication hook,
 * its handler), never from the raw URL.
 *
 * - `public`: nobody is authenticated and handlers get no principal (sign-up, log-in, the
 *   OpenAPI document).
 * - `data`: the figures. Callers without credentials are anonymous Free callers counted by
 *   address; a key or session must pass every allowlist of its account and key.
 * - `account`: account management. A session or an API key is required (401 without); the
 *   allowlists bind API keys, while a session may still reach these routes from anywhere so
 *   that a wrong allowlist can be fixed.
 *
 * `scope` is the scope a scoped (Enterprise) API key needs; sessions hold every scope. Every
 * route that is not public names one.
 */
export type RouteAuth =
  { readonly access: 'public' } | { readonly access: 'data' | 'account'; readonly scope: Scope };

/** A declaration that needs a principal: the authentication hook always sets one before the handler. */
export type AuthenticatedRoute = Exclude<RouteAuth, { readonly access: 'public' }>;
