import type { AmbientTransaction } from '../store/index.js';
import type { Principal, RouteAuth } from '../auth/index.js';
import type { DownloadGate } from './download-gate.js';
import type { RouteAllowedValues } from './problem.js';
import type { QuotaDeclaration } from './quota.js';
import type { ShutdownGate } from './shutdown-gate.js';

/**
 * What routes declare and what requests carry, for every route of the API: the one place where
 * Fastify's types are extended.
 */
declare module 'fastify' {
  interface FastifyContextConfig extends RouteAllowedValues {
    /** Who may call the route; required under /api/ (see authenticateByRoute). */
    auth?: RouteAuth;
    /** The plan feature the route needs beyond its scope (403 FEATURE_NOT_IN_PLAN without it). */
    planFeature?: 'bulk';
    /**
     * What one admitted request of the route spends of the caller's quota; required on the data
     * routes, absent elsewhere (see quotaByRoute).
     */
    quota?: QuotaDeclaration;
    /**
     * false: a POST route outside Idempotency-Key handling (the OAuth endpoints: each request
     * authenticates the client, and a stored answer must never go to another caller).
     */
    idempotency?: false;
    /**
     * `timed: false`: the SLA judges the route's answers by their status alone, not by the
     * server's time on them (docs/sla.md, rule 2): routes that build a file on demand whose size
     * the caller chooses (bulk files, saved queries, reports over a chosen period).
     */
    sla?: { timed: false };
  }
  interface FastifyRequest {
    /** The caller, set by the authentication hook on every route that is not public. */
    principal: Principal;
    /** The usage endpoint name when it is not the route's (a custom endpoint's own). */
    usageEndpoint?: string;
    /** When the request was received (its headers, then its whole body), on the server's clock. */
    receivedAt: number;
    /** When its answer was handed to node, on the server's clock (see observeResponses). */
    answeredAt: number;
    /** The stored answer's scope and key and its transaction, on a POST with Idempotency-Key. */
    idempotency: { scope: string; key: string; tx: AmbientTransaction } | null;
  }
  interface FastifyInstance {
    /** The base URL of problem `type` URIs for a request; null: no link. Default: its origin. */
    problemTypeBase?: (request: FastifyRequest) => string | null;
    /** A browser's page for an address nothing answers; null: the problem+json answer. */
    notFoundPage?: (request: FastifyRequest) => string | null;
    /** The graceful shutdown: draining, then refusing (503) until the server has closed. */
    shutdown: ShutdownGate;
    /** The cap on large files generated at once. */
    downloads: DownloadGate;
    /** Compiles every route schema not compiled yet (they compile on first use; see LazySchemas). */
    compileSchemas: () => void;
  }
}
