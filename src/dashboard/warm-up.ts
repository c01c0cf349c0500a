import { performance } from 'node:perf_hooks';
import type { FastifyBaseLogger } from 'fastify';
import type { Principal } from '../auth/index.js';
import type { DashboardDeps } from './context.js';
import { page } from './layout.js';
import { overviewContent, overviewData } from './pages-overview.js';

/**
 * The account the warm-up reads as. Account ids are `acct_` and 16 base64url characters; this
 * one has 17 after the prefix, so no account has it and its reads find no rows.
 */
export const WARM_UP_ACCOUNT = 'acct_dashboard-warm-up';

/** Start-up waits at most this long for the warm-up (a database slow to answer at start). */
export const WARM_UP_LIMIT_MS = 1000;

/**
 * Builds the overview once, as `GET /dashboard` does for an account with usage analytics (the
 * same reads, view model and HTML), for an account that does not exist, and throws the page
 * away. The first overview of a process paid, besides the process's first request of any kind,
 * for compiling the view model and templates and for the usage reads' first execution (query
 * plans, code paths of the database); run at start-up, that is paid before the first customer's
 * request (docs/dashboard.md, Speed). It only reads: the usage sums and the limiter's counters
 * (a peek, which counts nothing).
 */
export async function warmUpOverview(
  deps: Pick<DashboardDeps, 'plans' | 'usage' | 'clock'>,
): Promise<void> {
  const plan = Object.values(deps.plans).find((p) => p.usageAnalytics && p.limit !== null);
  if (plan === undefined) return;
  const principal: Principal = {
    kind: 'session',
    plan,
    accountId: WARM_UP_ACCOUNT,
    keyId: null,
    sessionId: null,
    scopes: null,
    allowlists: [],
    responseSchema: null,
    limitBucket: `acct:${WARM_UP_ACCOUNT}`,
  };
  const { quota, view } = await overviewData(deps, principal);
  page({ principal, email: '', csrf: '' }, '', 'Overview', overviewContent(plan, quota, view));
}

/**
 * Runs `warm` (the overview's warm-up) for at most `limitMs`, logging its cost at debug. It
 * never fails: an error is logged at warn and start-up goes on; past the limit start-up goes on
 * and the reads finish (or fail, logged) on their own.
 */
export async function warmUp(
  log: FastifyBaseLogger,
  warm: () => Promise<void>,
  limitMs = WARM_UP_LIMIT_MS,
): Promise<void> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const done = Promise.resolve()
    .then(warm)
    .then(
      () => {
        log.debug({ ms: Math.round(performance.now() - started) }, 'dashboard warmed up');
        return true;
      },
      (error: unknown) => {
        log.warn({ err: error }, 'dashboard warm-up failed; its first page is built on demand');
        return true;
      },
    );
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), limitMs);
    timer.unref();
  });
  const finished = await Promise.race([done, late]);
  clearTimeout(timer);
  if (!finished)
    log.warn({ limitMs }, 'dashboard warm-up still running; start-up goes on without it');
}
