import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccountService } from '../accounts/index.js';
import type { Principal } from '../auth/index.js';
import type { SubscriptionService } from '../billing/index.js';
import { AppError } from '../errors/index.js';
import type { CredentialCache, KeyService } from '../keys/index.js';
import type { Clock } from '../lib/clock.js';
import type { OAuthClientService } from '../oauth/index.js';
import type { AccessReviews, ComplianceDocuments, PdfPool } from '../compliance/index.js';
import type { CustomEndpointService } from '../custom-endpoints/index.js';
import type { ExportService } from '../exports/index.js';
import type { Plan, PlanId } from '../plans/index.js';
import type { ReleaseCatalog } from '../releases/index.js';
import type { SupportService } from '../support/index.js';
import type { UsageService } from '../usage/index.js';
import type { WebhookService } from '../webhooks/index.js';
import type { SlaService } from '../sla/index.js';
import type { Flash, PageContext } from './layout.js';

/** What the dashboard's pages are built from: the services the API uses. */
export interface DashboardDeps {
  accounts: AccountService;
  /** The in-memory credential view (sessions resolved without a database round trip). */
  cache: CredentialCache;
  keys: KeyService;
  usage: UsageService;
  subscriptions: SubscriptionService;
  webhooks: WebhookService;
  plans: Readonly<Record<PlanId, Plan>>;
  clock: Clock;
  secretKey: string;
  /** Notice addresses, the opt-out and the plan's support channel. */
  support: SupportService;
  /** The services of the pages a plan may lack; each is absent when not wired. */
  planFeatures: DashboardPlanFeatures;
  /** The kept data releases and what changed in each (the overview's release card). */
  releases?: ReleaseCatalog;
}

/** The services behind the dashboard's plan-dependent pages. */
export interface DashboardPlanFeatures {
  /** The uptime SLA's figures (the SLA page). */
  sla?: SlaService;
  /** The account's OAuth clients (their page, and their names in the usage by key). */
  oauthClients?: OAuthClientService;
  /** Scheduled exports (Enterprise). */
  exports?: ExportService;
  /** Custom endpoints (Enterprise). */
  customEndpoints?: CustomEndpointService;
  /** Compliance documents and the access review (Enterprise). */
  compliance?: { documents: ComplianceDocuments; reviews: AccessReviews; pdf: PdfPool };
}

export interface Signed {
  token: string;
  principal: Principal;
  page: PageContext;
}

/** The dashboard session of each signed-in page's request, set by the dashboard's session hook. */
const sessions = new WeakMap<FastifyRequest, Signed>();

export function setSignedIn(request: FastifyRequest, signed: Signed): void {
  sessions.set(request, signed);
}

/** The request's dashboard session, if it has one (a signed-in page's request always has). */
export function signedInSession(request: FastifyRequest): Signed | undefined {
  return sessions.get(request);
}

/** The dashboard session of a signed-in page's request. */
export function signedIn(request: FastifyRequest): Signed {
  const signed = sessions.get(request);
  if (signed === undefined) throw new Error('not a signed-in dashboard request');
  return signed;
}

export interface DashboardTools {
  deps: DashboardDeps;
  /** Sends an HTML page with the dashboard's headers. */
  send(reply: FastifyReply, status: number, body: string): FastifyReply;
  /** 303 to a dashboard path (Post/Redirect/Get). */
  redirect(reply: FastifyReply, path: string): FastifyReply;
}

/** An AppError's detail for the page; anything else is a generic fault (logged, not shown). */
export function flashOf(request: FastifyRequest, error: unknown): { status: number; flash: Flash } {
  if (error instanceof AppError && error.status < 500)
    return { status: error.status, flash: { kind: 'error', text: problemText(error) } };
  request.log.error({ request_id: request.id, err: error }, 'dashboard action failed');
  const status = error instanceof AppError ? error.status : 500;
  return {
    status: status === 503 ? 503 : 500,
    flash: {
      kind: 'error',
      text:
        status === 503
          ? 'The service is briefly unavailable; try again in a moment.'
          : 'Something went wrong on our side; try again, and contact support if it persists.',
    },
  };
}

function problemText(error: AppError): string {
  const params = error.extensions['invalid_params'];
  if (!Array.isArray(params) || params.length <= 1) return error.detail;
  const reasons = (params as { name: string; reason: string }[]).map(
    (p) => `${p.name} ${p.reason}`,
  );
  return `${error.detail} (${reasons.join('; ')})`;
}
