import { AjvCompiler } from '@fastify/ajv-compiler';
import proxyAddr from '@fastify/proxy-addr';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Principal } from '../auth/index.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { Format, Plan } from '../plans/index.js';
import {
  HistoryQuerySchema,
  JSON_TYPE,
  LOOKUP_AUTH,
  negotiateFormat,
  SalaryQuerySchema,
  type SalaryDataStore,
  type SalaryIndex,
  type SalaryService,
  type Selection,
} from '../salary/index.js';
import type { UsageRecorder } from '../usage/index.js';
import { writeAccessLine } from './access-log.js';
import type { Authenticate } from './auth-hook.js';
import type { QuotaHeaders, SpendQuota } from './quota.js';

/** Fastify's Ajv options; the fast path validates with the same compiler and options. */
export const AJV_OPTIONS = {
  customOptions: { removeAdditional: false, coerceTypes: true, allErrors: true },
  plugins: [],
};

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
type Validate = (data: unknown) => boolean;

interface LookupRoute {
  /** The usage endpoint name, as Fastify's path records it. */
  readonly endpoint: string;
  readonly validate: Validate;
  readonly allYears: boolean;
  /** Raw query → its validated form, or null when Fastify must take it; bounded. */
  readonly queries: Map<string, LookupQuery | null>;
}

type LookupQuery = Selection & { format?: Format };

/**
 * Only queries of plain `name=value` pairs: no percent-encoding, `+`, empty or repeated
 * values. Anything else (custom fields included) goes through Fastify.
 */
const PLAIN_QUERY = /^[A-Za-z0-9=&-]{1,512}$/;
/** Distinct raw queries remembered per route (each at most 512 characters). */
const QUERIES_REMEMBERED = 5_000;

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
  accessLog: Logger | undefined;
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
  readonly #routes: ReadonlyMap<string, LookupRoute>;
  readonly #trust: ((address: string, hop: number) => boolean) | undefined;
  /** The body last answered per query: the plan checks and cache lookup done once. */
  readonly #bodies = new WeakMap<LookupQuery, Body>();
  #closing = false;
  /** Requests answered here (not handed to Fastify), for tests and diagnostics. */
  served = 0;

  constructor(deps: FastLookupDeps) {
    this.#deps = deps;
    const compile = AjvCompiler()({}, AJV_OPTIONS);
    const route = (url: string, schema: object, allYears: boolean): [string, LookupRoute] => [
      url,
      {
        endpoint: `GET ${url}`,
        validate: compile({ schema, method: 'GET', url, httpPart: 'querystring' }) as Validate,
        allYears,
        queries: new Map(),
      },
    ];
    this.#routes = new Map([
      route('/api/v1/salary', SalaryQuerySchema, false),
      route('/api/v1/salary/history', HistoryQuerySchema, true),
    ]);
    this.#trust = deps.trustProxy.length > 0 ? proxyAddr.compile([...deps.trustProxy]) : undefined;
  }

  /** From now on every request goes to Fastify (which answers 503 while closing). */
  close(): void {
    this.#closing = true;
  }

  /** Answers the request, or hands it to `fallback` (Fastify's handler). */
  handle(req: IncomingMessage, res: ServerResponse, fallback: Handler): void {
    const url = req.url;
    if (this.#closing || req.method !== 'GET' || url === undefined) return fallback(req, res);
    const mark = url.indexOf('?');
    const route = mark === -1 ? undefined : this.#routes.get(url.slice(0, mark));
    if (route === undefined) return fallback(req, res);
    const started = this.#deps.accessLog === undefined ? 0 : performance.now();
    let query: LookupQuery | undefined;
    let ip: string | undefined;
    let principal: Principal | Promise<Principal>;
    try {
      query = queryOf(route, url.slice(mark + 1));
      ip = this.#clientAddress(req);
      if (query === undefined || ip === undefined) return fallback(req, res);
      if (negotiateFormat(query.format, req.headers.accept) !== 'json') return fallback(req, res);
      principal = this.#deps.authenticate(req.headers.authorization, ip, LOOKUP_AUTH);
    } catch {
      return fallback(req, res);
    }
    const answer: Answer = { req, url, res, fallback, route, query, ip, started };
    if (principal instanceof Promise) {
      principal.then(
        (p) => this.#spend(answer, p),
        () => fallback(req, res),
      );
    } else {
      this.#spend(answer, principal);
    }
  }

  #clientAddress(req: IncomingMessage): string | undefined {
    return this.#trust === undefined ? req.socket.remoteAddress : proxyAddr(req, this.#trust);
  }

  #spend(answer: Answer, principal: Principal): void {
    let body: Body | undefined;
    let spent: QuotaHeaders | Promise<QuotaHeaders>;
    try {
      if (principal.responseSchema !== null) return answer.fallback(answer.req, answer.res);
      body = this.#body(answer.query, principal);
      if (body === undefined) return answer.fallback(answer.req, answer.res);
      spent = this.#deps.spendQuota(principal, answer.ip);
    } catch {
      return answer.fallback(answer.req, answer.res);
    }
    const found = body;
    if (spent instanceof Promise) {
      spent.then(
        (headers) => this.#send(answer, principal, found, headers),
        () => answer.fallback(answer.req, answer.res),
      );
    } else {
      this.#send(answer, principal, found, spent);
    }
  }

  /**
   * The standard JSON body, as `standardJson` gives it (which throws the 403 or 404 problems);
   * remembered per query for the plan and release it was built for.
   */
  #body(query: LookupQuery, principal: Principal): Body | undefined {
    const index = this.#deps.data.index;
    const known = this.#bodies.get(query);
    if (known !== undefined && known.index === index && known.plan === principal.plan) return known;
    const json = this.#deps.salary.standardJson(query, principal);
    if (json === undefined || index === undefined) return undefined;
    const body = { index, plan: principal.plan, json, bytes: Buffer.byteLength(json) };
    this.#bodies.set(query, body);
    return body;
  }

  #send(answer: Answer, principal: Principal, body: Body, quota: QuotaHeaders): void {
    const { res, route } = answer;
    const id = this.#deps.nextRequestId();
    // A flat [name, value, …] list: node takes it as it is, without walking an object's keys.
    const headers: (string | number)[] = ['x-request-id', id];
    if (quota !== undefined) for (const name in quota) headers.push(name, quota[name]!);
    headers.push('content-type', JSON_TYPE, 'content-length', body.bytes);
    res.writeHead(200, headers as unknown as OutgoingHttpHeaders);
    res.end(body.json);
    this.served++;
    const { accountId, keyId } = principal;
    this.#deps.recorder.record(accountId, keyId, route.endpoint, 200, this.#deps.clock.now());
    if (this.#deps.accessLog !== undefined) {
      writeAccessLine(this.#deps.accessLog, {
        requestId: id,
        method: 'GET',
        url: answer.url,
        status: 200,
        ms: performance.now() - answer.started,
        ip: answer.ip,
        accountId,
      });
    }
  }
}

interface Answer {
  readonly req: IncomingMessage;
  readonly url: string;
  readonly res: ServerResponse;
  readonly fallback: Handler;
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
  return Object.freeze(route.allYears ? { ...query, year: 'all' } : query);
}
