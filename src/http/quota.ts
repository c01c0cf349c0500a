import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { addressBucket, type Principal } from '../auth/index.js';
import { AppError } from '../errors/index.js';
import type { Clock } from '../lib/clock.js';
import type { Plan } from '../plans/index.js';
import {
  HOUR_MS,
  MemoryRateLimiter,
  planRules,
  rateLimitHeaders,
  TEST_MODE_RULES,
  type LimitDecision,
  type LimitRule,
  type RateLimiter,
} from '../limits/index.js';
import { DECLARED_PREFIX } from './auth-hook.js';
import { sendRefusal } from './problem.js';
import { hookList } from './route-hooks.js';

/**
 * What a route that spends quota declares in its `config.quota`, once: every path that answers
 * the route (its handler through `routeQuotaSpender`, export runs, MCP tools) reads it there.
 * `cost` is the number of units of the plan's request limit one admitted request uses (a
 * positive integer). It weighs the limiter only: usage still counts requests, one per request.
 */
export interface QuotaDeclaration {
  readonly cost: number;
}

/**
 * Checks every route registered from now on: a data route (`config.auth.access` 'data': the
 * figures) under /api/ must declare `config.quota`, a public one must not (it has no principal
 * whose quota to spend), and a declared cost must be a positive integer. Registration fails otherwise, so
 * a handler that spends always finds its route's declaration. Each route's cost (0 without a
 * declaration) also goes to `endpoints`, the limiter's reconciliation floor's weights.
 */
/** Where each route's declared cost goes as routes are registered. */
export interface RouteCosts {
  add(method: string, url: string, cost: number): void;
}

/** How each quota decision went, per plan (for metrics). */
export type LimitOutcome = (plan: string, outcome: 'admitted' | 'refused' | 'fallback') => void;

export function quotaByRoute(app: FastifyInstance, endpoints?: RouteCosts): void {
  app.addHook('onRoute', (route) => {
    const quota = route.config?.quota;
    const auth = route.config?.auth;
    const name = `${String(route.method)} ${route.url}`;
    for (const method of hookList(route.method))
      endpoints?.add(method, route.url, quota?.cost ?? 0);
    if (quota === undefined) {
      if (auth?.access === 'data' && route.url.startsWith(DECLARED_PREFIX))
        throw new Error(`${name} serves data and declares no config.quota`);
      return;
    }
    if (!Number.isSafeInteger(quota.cost) || quota.cost < 1)
      throw new Error(`${name} declares config.quota.cost ${quota.cost}, not a positive integer`);
    if (auth === undefined || auth.access === 'public')
      throw new Error(
        `${name} declares config.quota but no caller whose quota to spend (config.auth)`,
      );
  });
}

/** The rate-limit headers of an admitted request; undefined for an unlimited plan. */
export type QuotaHeaders = Readonly<Record<string, string>> | undefined;

/**
 * Spends `cost` units of the principal's quota (the route's `config.quota.cost`) and returns
 * the rate-limit headers to send, or the 429 problem (returned, not thrown: a flood past a
 * limit is the refusal an attacker can repeat most cheaply, and a throw per request was a tenth
 * of its cost) when the window is used up (the cost no longer fits), which spends nothing.
 * A Free account's request also spends as much of its client address's bucket (`ip`), the one
 * anonymous callers use, so signing up cannot multiply the anonymous allowance.
 * Synchronous with the in-process limiter; a promise with the shared (Redis) one.
 */
export type SpendQuota = (principal: Principal, ip: string, cost: number) => Spent | Promise<Spent>;

/** The headers of an admitted request, or the refusal to send. */
export type Spent = QuotaHeaders | AppError;

/**
 * The one way a handler spends its route's quota: `answer` runs only when the request is
 * admitted (the rate-limit headers set) and its result is returned; a refused request has been
 * answered with the 429, and nothing of the route's own answer is built, rendered or sent
 * (the result is undefined). A promise only when the limiter is asynchronous (shared limits)
 * or `answer` returns one.
 */
export type SpendRouteQuota = <T>(
  request: FastifyRequest,
  reply: FastifyReply,
  answer: () => T,
) => T | undefined | Promise<Awaited<T> | undefined>;

export function quotaSpender(
  limiter: RateLimiter,
  clock: Clock,
  outcome?: LimitOutcome,
): SpendQuota {
  const refusals = new RefusalCache();
  const apply = (
    principal: Principal,
    decision: LimitDecision,
    now: number,
    cost: number,
  ): Spent => {
    const headers = rateLimitHeaders(decision, now);
    outcome?.(
      principal.plan.id,
      !decision.allowed ? 'refused' : limiter.degraded === true ? 'fallback' : 'admitted',
    );
    if (!decision.allowed) return refusals.get(principal, decision, headers, cost);
    return headers;
  };
  // The in-process limiter decides synchronously: no promise on the hot path.
  const sync = limiter instanceof MemoryRateLimiter ? limiter : undefined;
  return (principal, ip, cost) => {
    const test = principal.mode === 'test';
    const rules = test ? TEST_MODE_RULES : planRules(principal.plan);
    if (rules.length === 0) return undefined;
    const now = clock.now();
    const bucket = principal.limitBucket;
    const address = principal.kind !== 'anonymous' && principal.plan.id === 'free' && !test;
    if (sync !== undefined) {
      if (!address) return apply(principal, sync.spendSync(bucket, rules, now, cost), now, cost);
      const byAddress = sync.spendSync(addressBucket(ip), rules, now, cost);
      if (!byAddress.allowed) return apply(principal, byAddress, now, cost);
      const decision = sync.spendSync(bucket, rules, now, cost);
      if (!decision.allowed) sync.releaseSync(addressBucket(ip), rules, now, cost);
      return apply(principal, tighter(decision, byAddress), now, cost);
    }
    if (!address)
      return limiter.spend(bucket, rules, now, cost).then((d) => apply(principal, d, now, cost));
    return spendBoth(limiter, bucket, addressBucket(ip), rules, now, cost).then((d) =>
      apply(principal, d, now, cost),
    );
  };
}

/** Both buckets or neither: the address first, given back when the account refuses. */
async function spendBoth(
  limiter: RateLimiter,
  bucket: string,
  address: string,
  rules: readonly LimitRule[],
  now: number,
  cost: number,
): Promise<LimitDecision> {
  const byAddress = await limiter.spend(address, rules, now, cost);
  if (!byAddress.allowed) return byAddress;
  const decision = await limiter.spend(bucket, rules, now, cost);
  if (!decision.allowed) await limiter.release(address, rules, now, cost);
  return tighter(decision, byAddress);
}

/** Of two admitting decisions, the one with less left (its headers are the ones to send). */
function tighter(a: LimitDecision, b: LimitDecision): LimitDecision {
  if (!a.allowed) return a;
  return (b.states[0]?.remaining ?? Infinity) < (a.states[0]?.remaining ?? Infinity) ? b : a;
}

/**
 * The route handlers' form of `SpendQuota` (see SpendRouteQuota): spends the cost the matched
 * route declares in `config.quota`, sets the headers on the reply and answers through the
 * handler's `answer` when admitted. Handlers call it after validation and plan checks, so
 * refused requests (400, 401, 403, 404) never use quota. A route that calls it without a
 * declaration is a fault (500), which `quotaByRoute` keeps from being registered.
 */
export function routeQuotaSpender(spend: SpendQuota): SpendRouteQuota {
  const admitted = (request: FastifyRequest, reply: FastifyReply, spent: Spent): boolean => {
    if (spent instanceof AppError) {
      sendRefusal(request, reply, spent);
      return false;
    }
    if (spent !== undefined) reply.headers(spent);
    return true;
  };
  return <T>(request: FastifyRequest, reply: FastifyReply, answer: () => T) => {
    const { quota } = request.routeOptions.config;
    if (quota === undefined)
      throw new Error(`${request.method} ${request.url} spends quota but declares no config.quota`);
    const spent = spend(request.principal, request.ip, quota.cost);
    if (spent instanceof Promise)
      return spent.then((s) => (admitted(request, reply, s) ? answer() : undefined)) as Promise<
        Awaited<T> | undefined
      >;
    return admitted(request, reply, spent) ? answer() : undefined;
  };
}

/** Buckets whose refusal is remembered; beyond, the cache starts again (a flood of addresses). */
const REFUSALS_REMEMBERED = 10_000;

/**
 * The 429 of a bucket, built once while its headers stay the same (they change each second,
 * with Retry-After): a client hammering past its limit then gets the same error object, whose
 * problem document is then serialized once (`problemJson`).
 */
class RefusalCache {
  readonly #byBucket = new Map<string, { key: string; plan: Plan; error: AppError }>();

  get(
    principal: Principal,
    decision: LimitDecision,
    headers: Record<string, string>,
    cost: number,
  ): AppError {
    const key = `${headers['retry-after']} ${headers['ratelimit']} ${cost}`;
    const bucket = principal.limitBucket;
    const known = this.#byBucket.get(bucket);
    if (known !== undefined && known.key === key && known.plan === principal.plan) {
      return known.error;
    }
    const allowance = decision.states
      .map((s) => `${s.rule.limit} requests per ${windowName(s.rule.windowMs)}`)
      .join(' and ');
    const test = principal.mode === 'test';
    const who = test ? "The account's test-mode keys together" : `The ${principal.plan.name} plan`;
    const error = new AppError(
      'RATE_LIMITED',
      `${who} allow${test ? '' : 's'} ${allowance}${cost === 1 ? '' : `; this request counts as ${cost}`}; the limit resets in ${decision.retryAfterSeconds} s.`,
      {
        headers,
        extensions: {
          retry_after: decision.retryAfterSeconds,
          plan: principal.plan.id,
          ...(test ? { mode: 'test' } : {}),
        },
      },
    );
    if (this.#byBucket.size >= REFUSALS_REMEMBERED) this.#byBucket.clear();
    this.#byBucket.set(bucket, { key, plan: principal.plan, error });
    return error;
  }
}

function windowName(windowMs: number): string {
  if (windowMs === HOUR_MS) return 'hour';
  return windowMs === 60_000 ? 'minute' : 'day';
}
