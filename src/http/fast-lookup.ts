import { AjvCompiler } from '@fastify/ajv-compiler';
import proxyAddr from '@fastify/proxy-addr';
import type { RouteOptions } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import { performance } from 'node:perf_hooks';
import {
  usageKeyOf,
  type AuthenticatedRoute,
  type CredentialRequest,
  type Principal,
} from '../auth/index.js';
import type { Clock } from '../lib/clock.js';
import type { Metrics, ObserveRequest } from '../metrics/index.js';
import type { Format, Plan } from '../plans/index.js';
import { AppError } from '../errors/index.js';
import {
  JSON_TYPE,
  negotiateFormat,
  type SalaryDataStore,
  type SalaryIndex,
  type SalaryService,
  type Selection,
} from '../salary/index.js';
import type { UsageRecorder } from '../usage/index.js';
import type { AccessLog } from './access-log.js';
import type { Admitted, Authenticate } from './auth-hook.js';
import { PROBLEM_JSON, problemJson } from './problem.js';
import type { QuotaHeaders, SpendQuota, Spent } from './quota.js';

/** Fastify's Ajv options; the fast path validates with the same compiler and options. */
export const AJV_OPTIONS = {
  customOptions: { removeAdditional: false, coerceTypes: true, allErrors: true },
  plugins: [],
};

type Validate = (data: unknown) => boolean;

type LookupQuery = Selection & { format?: Format };

/**
 * What a route declares in its `config` to be answered by the lookup fast path: its plain
 * JSON lookups may skip Fastify. Everything else the fast path does it reads from the same
 * route: the querystring schema, the authentication declaration (`config.auth`), the plan
 * feature (`config.planFeature`), the quota cost (`config.quota`), the URL.
 */
export interface CheapPathRoute {
  readonly cheapPath?: {
    /** Added to the validated query, as the route's handler adds it (the history's year). */
    readonly fixed?: Readonly<Partial<LookupQuery>>;
  };
}

interface LookupRoute {
  /** The usage endpoint name, as Fastify's path records it. */
  readonly endpoint: string;
  readonly validate: Validate;
  /** The route's own `config.auth`, as Fastify's authentication hook reads it. */
  readonly auth: AuthenticatedRoute;
  /** The route's own `config.planFeature`, as its handler reads it. */
  readonly planFeature: 'bulk' | undefined;
  /** The route's own `config.quota.cost`, as the handlers' spender (`quotaEnforcer`) reads it. */
  readonly cost: number;
  readonly fixed: Readonly<Partial<LookupQuery>> | undefined;
  /** Raw query → its validated form, or null when Fastify must take it; bounded. */
  readonly queries: Map<string, LookupQuery | null>;
  /** The route's request counter and latency histogram, bound once (metrics on). */
  readonly observe: ObserveRequest | undefined;
}

/**
 * Only queries of plain `name=value` pairs: no percent-encoding, `+`, empty or repeated
 * values. Anything else (custom fields included) goes through Fastify.
 */
const PLAIN_QUERY = /^[A-Za-z0-9=&-]{1,512}$/;
/**
 * Refusals yield to served requests: while lookups are being served (one answered 200 within
 * CONTENTION_MS), the n-th consecutive refusal on a connection is answered after n − 1 ms, at
 * most MAX_YIELD_MS. A flood of bad credentials (or of requests over a limit) so holds its own
 * connections instead of the CPU, and the clients being served keep it; with nothing else to
 * serve, refusals go out at once at full speed. Only on connections read directly, which read
 * nothing more until the answer is out (`LookupExchange.mayWait`).
 */
const CONTENTION_MS = 100;
const MAX_YIELD_MS = 50;
/** Distinct raw queries remembered per route (each at most 512 characters). */
const QUERIES_REMEMBERED = 5_000;

/**
 * One request the fast path may answer, and the way its answer goes out: node's request and
 * response (`NodeExchange` in lookup-server.ts), or a connection read directly
 * (`DirectConnections`).
 */
export interface LookupExchange {
  readonly method: string | undefined;
  /** The request target as sent (path and query). */
  readonly url: string | undefined;
  readonly authorization: string | undefined;
  readonly accept: string | undefined;
  /** The connection it came on: refusals in a row are counted per connection. */
  readonly connection: object;
  /**
   * The request as proxy-addr reads it (X-Forwarded-For, the peer's address) and as a DPoP
   * proof is checked against (its headers).
   */
  readonly request: CredentialRequest & {
    readonly headers: IncomingHttpHeaders;
    readonly socket: { readonly remoteAddress?: string | undefined };
  };
  /** A refusal may be held back (see CONTENTION_MS): nothing behind it can be lost. */
  readonly mayWait: boolean;
  /** The client has gone: an answer due later is not sent. */
  readonly closed: boolean;
  /** Sends the answer: status, a flat [name, value, …] header list, the body. */
  send(status: number, headers: (string | number)[], body: string): void;
  /** Hands the untouched request to Fastify, which decides and renders it. */
  pass(): void;
}

/** A standard JSON body and what it was built for: valid while plan and release are the same. */
interface Body {
  readonly index: SalaryIndex;
  readonly plan: Plan;
  readonly json: string;
  readonly bytes: number;
}

export interface FastLookupDeps {
  salary: SalaryService;
  data: SalaryDataStore;
  authenticate: Authenticate;
  spendQuota: SpendQuota;
  recorder: UsageRecorder;
  clock: Clock;
  nextRequestId: () => string;
  trustProxy: readonly string[];
  /** Where access lines go when ACCESS_LOG is on. */
  accessLog: AccessLog | undefined;
  /** Request counts and latency, when metrics are on. */
  metrics?: Metrics | undefined;
  /** The SLA's per-interval counts (docs/sla.md), when wired. */
  slaCount?: ((accountId: string | null, status: number, at: number) => void) | undefined;
  /** Accounts whose answers are not the standard body (white-label): Fastify takes them. */
  ownAnswer?: (principal: Principal) => boolean;
}

/**
 * The hot path: `GET /api/v1/salary` and `/salary/history` with a plain query, answered as
 * standard JSON straight on node:http, before Fastify routes the request. It runs the same
 * validation (Fastify's Ajv compiler on the route's schema), authentication, plan checks,
 * quota and cached body as the Fastify route, and counts usage and writes the access line as
 * the Fastify hooks do. It answers only the 200: whenever anything is not plainly fine (an
 * unusual query, another format, a custom schema, any refusal or error) it hands the
 * untouched request to Fastify, which decides and renders it. A refused quota decision spends
 * nothing, so Fastify deciding again is exact.
 */
export class FastLookup {
  readonly #deps: FastLookupDeps;
  readonly #routes = new Map<string, LookupRoute>();
  readonly #compile: ReturnType<ReturnType<typeof AjvCompiler>>;
  readonly #trust: ((address: string, hop: number) => boolean) | undefined;
  /** The body last answered per query: the plan checks and cache lookup done once. */
  readonly #bodies = new WeakMap<LookupQuery, Body>();
  #closing = false;
  /** Requests answered here with 200 (not handed to Fastify), for tests and diagnostics. */
  served = 0;
  /** Requests refused here (401, 403, 404, 429), for tests and diagnostics. */
  refused = 0;
  /** Refusals answered late to leave the CPU to served requests (see CONTENTION_MS). */
  yielded = 0;
  /** Consecutive refusals per connection. */
  readonly #strikes = new WeakMap<object, number>();
  #servedAt = Number.NEGATIVE_INFINITY;

  constructor(deps: FastLookupDeps) {
    this.#deps = deps;
    this.#compile = AjvCompiler()({}, AJV_OPTIONS);
    this.#trust = deps.trustProxy.length > 0 ? proxyAddr.compile([...deps.trustProxy]) : undefined;
  }

  /** Fastify's onRoute: takes the GET routes whose config declares `cheapPath`. */
  addRoute(route: RouteOptions): void {
    const config = route.config as CheapPathRoute | undefined;
    const schema = route.schema?.querystring;
    const auth = route.config?.auth;
    if (config?.cheapPath === undefined || schema === undefined) return;
    if (auth === undefined || auth.access === 'public') return;
    if (route.method !== 'GET' && !(Array.isArray(route.method) && route.method.includes('GET')))
      return;
    const { url } = route;
    const quota = route.config?.quota;
    if (quota === undefined) throw new Error(`GET ${url} declares cheapPath but no config.quota`);
    this.#routes.set(url, {
      endpoint: `GET ${url}`,
      validate: this.#compile({ schema, method: 'GET', url, httpPart: 'querystring' }) as Validate,
      auth,
      planFeature: route.config?.planFeature,
      cost: quota.cost,
      fixed: config.cheapPath.fixed,
      queries: new Map(),
      observe: this.#deps.metrics?.requests('GET', url),
    });
  }

  /** From now on every request goes to Fastify (which answers 503 while closing). */
  close(): void {
    this.#closing = true;
  }

  /** Answers the request, or hands it to Fastify (`exchange.pass`). */
  handle(exchange: LookupExchange): void {
    const url = exchange.url;
    if (this.#closing || exchange.method !== 'GET' || url === undefined) return exchange.pass();
    const mark = url.indexOf('?');
    const route = mark === -1 ? undefined : this.#routes.get(url.slice(0, mark));
    if (route === undefined) return exchange.pass();
    const started =
      this.#deps.accessLog === undefined && route.observe === undefined ? 0 : performance.now();
    let query: LookupQuery | undefined;
    let ip: string | undefined;
    try {
      query = queryOf(route, url.slice(mark + 1));
      ip = this.#clientAddress(exchange);
      if (query === undefined || ip === undefined) return exchange.pass();
      if (negotiateFormat(query.format, exchange.accept) !== 'json') return exchange.pass();
    } catch {
      return exchange.pass();
    }
    const answer: Answer = { exchange, url, route, query, ip, started };
    let principal: Admitted | Promise<Admitted>;
    try {
      principal = this.#deps.authenticate(exchange.authorization, ip, route.auth, exchange.request);
    } catch (error) {
      return this.#refuse(answer, error, null);
    }
    if (principal instanceof Promise) {
      principal.then(
        (p) => this.#admitted(answer, p),
        (error: unknown) => this.#refuse(answer, error, null),
      );
    } else {
      this.#admitted(answer, principal);
    }
  }

  #admitted(answer: Answer, admitted: Admitted): void {
    if (admitted instanceof AppError) this.#refuse(answer, admitted, null);
    else this.#spend(answer, admitted);
  }

  #clientAddress(exchange: LookupExchange): string | undefined {
    const { request } = exchange;
    return this.#trust === undefined
      ? request.socket.remoteAddress
      : proxyAddr(request as Parameters<typeof proxyAddr>[0], this.#trust);
  }

  #spend(answer: Answer, principal: Principal): void {
    let body: Body | undefined;
    let spent: Spent | Promise<Spent>;
    try {
      if (principal.responseSchema !== null) return answer.exchange.pass();
      if (this.#deps.ownAnswer?.(principal) === true) return answer.exchange.pass();
      body = this.#body(answer.route, answer.query, principal);
      if (body === undefined) return answer.exchange.pass();
      spent = this.#deps.spendQuota(principal, answer.ip, answer.route.cost);
    } catch (error) {
      return this.#refuse(answer, error, principal);
    }
    const found = body;
    if (spent instanceof Promise) {
      spent.then(
        (result) => this.#answer(answer, principal, found, result),
        (error: unknown) => this.#refuse(answer, error, principal),
      );
    } else {
      this.#answer(answer, principal, found, spent);
    }
  }

  #answer(answer: Answer, principal: Principal, body: Body, spent: Spent): void {
    if (spent instanceof AppError) this.#refuse(answer, spent, principal);
    else this.#send(answer, principal, body, spent);
  }

  /**
   * The standard JSON body, as `standardJson` gives it (which throws the 403 or 404 problems);
   * remembered per query for the plan and release it was built for.
   */
  #body(route: LookupRoute, query: LookupQuery, principal: Principal): Body | undefined {
    const index = this.#deps.data.index;
    const known = this.#bodies.get(query);
    if (known !== undefined && known.index === index && known.plan === principal.plan) return known;
    const json = this.#deps.salary.standardJson(query, principal, { feature: route.planFeature });
    if (json === undefined || index === undefined) return undefined;
    const body = { index, plan: principal.plan, json, bytes: Buffer.byteLength(json) };
    this.#bodies.set(query, body);
    return body;
  }

  #send(answer: Answer, principal: Principal, body: Body, quota: QuotaHeaders): void {
    const id = this.#deps.nextRequestId();
    // A flat [name, value, …] list: node takes it as it is, without walking an object's keys.
    const headers: (string | number)[] = ['x-request-id', id];
    if (quota !== undefined) for (const name in quota) headers.push(name, quota[name]!);
    headers.push('content-type', JSON_TYPE, 'content-length', body.bytes);
    answer.exchange.send(200, headers, body.json);
    this.served++;
    this.#servedAt = this.#deps.clock.now();
    this.#strikes.delete(answer.exchange.connection);
    this.#finish(answer, id, 200, principal);
  }

  /**
   * A client error decided here (401 or 403 from authentication, 403 or 404 from the plan
   * checks, 429 from the quota) is answered here as the Fastify error handler would render it;
   * anything else (a fault) goes to Fastify untouched, which logs and renders it.
   */
  #refuse(answer: Answer, error: unknown, principal: Principal | null): void {
    if (!(error instanceof AppError) || error.status >= 500) return answer.exchange.pass();
    const id = this.#deps.nextRequestId();
    const json = problemJson(error, answer.url, id);
    const headers: (string | number)[] = ['x-request-id', id];
    for (const name in error.headers) headers.push(name, error.headers[name]!);
    headers.push('content-type', PROBLEM_JSON, 'content-length', Buffer.byteLength(json));
    const { exchange } = answer;
    const strikes = (this.#strikes.get(exchange.connection) ?? 0) + 1;
    this.#strikes.set(exchange.connection, strikes);
    const contended = exchange.mayWait && this.#deps.clock.now() - this.#servedAt < CONTENTION_MS;
    const delay = contended ? Math.min(strikes - 1, MAX_YIELD_MS) : 0;
    if (delay === 0) {
      exchange.send(error.status, headers, json);
    } else {
      this.yielded++;
      setTimeout(() => {
        if (!exchange.closed) exchange.send(error.status, headers, json);
      }, delay);
    }
    this.refused++;
    this.#finish(answer, id, error.status, principal);
  }

  /** Usage and the access line, as Fastify's onResponse hook records them. */
  #finish(answer: Answer, id: string, status: number, principal: Principal | null): void {
    const accountId = principal?.accountId ?? null;
    const keyId = usageKeyOf(principal);
    const now = this.#deps.clock.now();
    this.#deps.recorder.record(accountId, keyId, answer.route.endpoint, status, now);
    this.#deps.slaCount?.(accountId, status, now);
    answer.route.observe?.(status, (performance.now() - answer.started) / 1000);
    if (this.#deps.accessLog !== undefined) {
      this.#deps.accessLog.write({
        requestId: id,
        method: 'GET',
        url: answer.url,
        status,
        ms: performance.now() - answer.started,
        ip: answer.ip,
        accountId,
      });
    }
  }
}

interface Answer {
  readonly exchange: LookupExchange;
  readonly url: string;
  readonly route: LookupRoute;
  readonly query: LookupQuery;
  readonly ip: string;
  readonly started: number;
}

/** The query as Fastify would validate and coerce it (remembered), or undefined when not plain. */
function queryOf(route: LookupRoute, raw: string): LookupQuery | undefined {
  let query = route.queries.get(raw);
  if (query === undefined) {
    query = parseQuery(raw, route) ?? null;
    if (route.queries.size >= QUERIES_REMEMBERED) route.queries.clear();
    route.queries.set(raw, query);
  }
  return query ?? undefined;
}

function parseQuery(raw: string, route: LookupRoute): LookupQuery | undefined {
  if (!PLAIN_QUERY.test(raw)) return undefined;
  const params: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const part of raw.split('&')) {
    const eq = part.indexOf('=');
    if (eq <= 0 || eq === part.length - 1 || part.includes('=', eq + 1)) return undefined;
    const name = part.slice(0, eq);
    if (name in params) return undefined;
    params[name] = part.slice(eq + 1);
  }
  if (!route.validate(params)) return undefined;
  const query = params as LookupQuery;
  return Object.freeze(route.fixed === undefined ? query : { ...query, ...route.fixed });
}
