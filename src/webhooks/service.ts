import { actorOf, type Principal } from '../auth/index.js';
import { recordAudit } from '../audit/index.js';
import { AppError } from '../errors/index.js';
import type { Clock } from '../lib/clock.js';
import { prefixedId } from '../lib/ids.js';
import type { SecretBox } from '../lib/secret-box.js';
import type { LimitRule, RateLimiter } from '../limits/index.js';
import { assertPlanHas, type Plan, type PlanId } from '../plans/index.js';
import { lockAccount, type Db, type Queryable } from '../store/index.js';
import { checkTargetUrl } from './address-guard.js';
import { insertEvent } from '../releases/index.js';
import * as repo from './repo.js';
import type { SendResult, WebhookSender } from './sender.js';
import { userAgentFor } from './sender.js';
import { generateSigningSecret, signedHeaders } from './signature.js';
import { REDELIVERY_RULE, TEST_SEND_RULE, throttleAccount, untilTimeout } from './test-send.js';

/** The event kinds an endpoint can subscribe to. */
export const EVENT_TYPES = [
  'data.updated',
  'export.completed',
  'export.failed',
  // Uptime SLA and status page (docs/sla.md).
  'sla.credit_issued',
  'status.incident',
  'status.maintenance',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** How long the secret before a rotation keeps signing (both signatures are sent). */
export const SECRET_ROTATION_GRACE_MS = 24 * 3_600_000;

export interface PublicEndpoint {
  id: string;
  url: string;
  events: string[];
  status: 'enabled' | 'disabled';
  disabled_reason: string | null;
  failing_since: string | null;
  created_at: string;
  updated_at: string;
}

export interface EndpointInput {
  url?: string;
  events?: string[];
  enabled?: boolean;
}

export interface TestResult {
  ok: boolean;
  status_code: number | null;
  duration_ms: number | null;
  error: string | null;
}

export function publicEndpoint(e: repo.EndpointRow): PublicEndpoint {
  return {
    id: e.id,
    url: e.url,
    events: e.events,
    status: e.enabled ? 'enabled' : 'disabled',
    disabled_reason: e.disabledReason,
    failing_since: e.failingSince,
    created_at: e.createdAt,
    updated_at: e.updatedAt,
  };
}

/** The JSON body sent for an event (Standard Webhooks payload shape). */
export function payloadOf(type: string, createdAt: string, data: unknown): string {
  return JSON.stringify({ type, timestamp: createdAt, data });
}

/** The secrets that sign now: the current one, and the previous one during its grace period. */
export function signingSecrets(
  box: SecretBox,
  e: {
    secretEnc: string;
    previousSecretEnc: string | null;
    previousSecretExpiresAt: string | null;
  },
  now: number,
): string[] {
  const secrets = [box.open(e.secretEnc)];
  if (
    e.previousSecretEnc !== null &&
    e.previousSecretExpiresAt !== null &&
    Date.parse(e.previousSecretExpiresAt) > now
  ) {
    secrets.push(box.open(e.previousSecretEnc));
  }
  return secrets;
}

export function createWebhookService(deps: {
  db: Db;
  clock: Clock;
  plans: Readonly<Record<PlanId, Plan>>;
  box: SecretBox;
  sender: WebhookSender;
  allowPrivateTargets: boolean;
  limiter: RateLimiter;
  /** A white-label account's labelling (its webhooks name the licensee, never this service). */
  labelling?: (accountId: string) => { licensee: string } | null;
}) {
  const { db, clock, plans, box, sender, limiter } = deps;
  const publish = webhookPublisher(plans, clock);

  const throttle = (accountId: string, rule: LimitRule, what: string): Promise<void> =>
    throttleAccount(limiter, clock, accountId, rule, what);

  const accountOf = (p: Principal): string => {
    if (p.accountId === null) throw new AppError('UNAUTHENTICATED', 'Sign in or use an API key.');
    assertPlanHas(plans, p.plan, (plan) => plan.webhooks, 'Webhooks');
    return p.accountId;
  };

  function validateUrl(url: string): string {
    const check = checkTargetUrl(url, deps.allowPrivateTargets);
    if (!check.ok) throw AppError.invalidParams([{ name: 'url', reason: check.reason }]);
    return check.url.toString();
  }

  function validateEvents(events: string[]): string[] {
    const unknown = events.filter((e) => !(EVENT_TYPES as readonly string[]).includes(e));
    if (unknown.length > 0 || events.length === 0) {
      throw AppError.invalidParams([
        {
          name: 'events',
          reason:
            unknown.length > 0
              ? `unknown event kind ${unknown.join(', ')}`
              : 'must name at least one event kind',
          allowed: EVENT_TYPES,
        },
      ]);
    }
    return [...new Set(events)];
  }

  async function mustFind(accountId: string, id: string): Promise<repo.EndpointRow> {
    const row = await repo.findEndpoint(db, accountId, id);
    if (row === undefined) throw new AppError('NOT_FOUND', `No webhook ${id} on this account.`);
    return row;
  }

  /** Changes an endpoint of the caller's account with its audit entry, in one transaction. */
  async function change(
    principal: Principal,
    id: string,
    changes: repo.EndpointChanges,
    action: string,
    data: Record<string, unknown>,
    ip: string,
  ): Promise<repo.EndpointRow> {
    const accountId = accountOf(principal);
    await mustFind(accountId, id);
    const at = new Date(clock.now());
    return db.transaction(async (tx) => {
      const row = (await repo.updateEndpoint(tx, id, changes, at)) as repo.EndpointRow;
      await recordAudit(tx, { accountId, actor: actorOf(principal), action, data, ip, at });
      return row;
    });
  }

  return {
    async create(
      principal: Principal,
      input: { url: string; events: string[] },
      ip: string,
    ): Promise<PublicEndpoint & { secret: string }> {
      const accountId = accountOf(principal);
      const url = validateUrl(input.url);
      const events = validateEvents(input.events);
      const secret = generateSigningSecret();
      const at = new Date(clock.now());
      const row = await db.transaction(async (tx) => {
        await lockAccount(tx, accountId);
        const max = principal.plan.maxWebhookEndpoints;
        if ((await repo.countEndpoints(tx, accountId)) >= max) {
          throw new AppError(
            'WEBHOOK_LIMIT_REACHED',
            `The ${principal.plan.name} plan allows ${max} webhook endpoints; delete one first.`,
            { extensions: { max_endpoints: max } },
          );
        }
        const created = await repo.insertEndpoint(tx, {
          id: prefixedId('wh'),
          accountId,
          url,
          events,
          secretEnc: box.seal(secret),
          at,
        });
        await recordAudit(tx, {
          accountId,
          actor: actorOf(principal),
          action: 'webhooks.create',
          data: { webhook_id: created.id, url, events },
          ip,
          at,
        });
        return created;
      });
      return { ...publicEndpoint(row), secret };
    },

    async list(principal: Principal): Promise<PublicEndpoint[]> {
      return (await repo.listEndpoints(db, accountOf(principal))).map(publicEndpoint);
    },

    async get(principal: Principal, id: string): Promise<PublicEndpoint> {
      return publicEndpoint(await mustFind(accountOf(principal), id));
    },

    async update(principal: Principal, id: string, input: EndpointInput, ip: string) {
      const changes: repo.EndpointChanges = {};
      if (input.url !== undefined) changes.url = validateUrl(input.url);
      if (input.events !== undefined) changes.events = validateEvents(input.events);
      if (input.enabled !== undefined) {
        changes.enabled = input.enabled;
        changes.disabledReason = input.enabled ? null : 'disabled by the account';
        if (input.enabled) changes.failingSince = null;
      }
      const row = await change(
        principal,
        id,
        changes,
        'webhooks.update',
        { webhook_id: id, ...changes },
        ip,
      );
      return publicEndpoint(row);
    },

    async remove(principal: Principal, id: string, ip: string): Promise<void> {
      const accountId = accountOf(principal);
      const row = await mustFind(accountId, id);
      const at = new Date(clock.now());
      await db.transaction(async (tx) => {
        await repo.deleteEndpoint(tx, accountId, id);
        await recordAudit(tx, {
          accountId,
          actor: actorOf(principal),
          action: 'webhooks.delete',
          data: { webhook_id: id, url: row.url },
          ip,
          at,
        });
      });
    },

    async rotateSecret(principal: Principal, id: string, ip: string) {
      const accountId = accountOf(principal);
      const old = await mustFind(accountId, id);
      const secret = generateSigningSecret();
      const expiresAt = new Date(clock.now() + SECRET_ROTATION_GRACE_MS);
      const row = await change(
        principal,
        id,
        {
          secretEnc: box.seal(secret),
          previousSecretEnc: old.secretEnc,
          previousSecretExpiresAt: expiresAt,
        },
        'webhooks.rotate_secret',
        { webhook_id: id, previous_secret_expires_at: expiresAt.toISOString() },
        ip,
      );
      return {
        ...publicEndpoint(row),
        secret,
        previous_secret_expires_at: expiresAt.toISOString(),
      };
    },

    /** Sends a signed `webhook.test` event now; the target's response body is never read. */
    async sendTest(principal: Principal, id: string): Promise<TestResult> {
      const row = await mustFind(accountOf(principal), id);
      await throttle(row.accountId, TEST_SEND_RULE, 'test sends');
      const now = clock.now();
      const messageId = prefixedId('msg_test');
      const labelling = deps.labelling?.(row.accountId) ?? null;
      const body = payloadOf('webhook.test', new Date(now).toISOString(), {
        webhook_id: row.id,
        message: labelling === null ? 'A test event from the salary API.' : 'A test event.',
      });
      const started = performance.now();
      const userAgent = userAgentFor(labelling);
      const result: SendResult = await sender.send({
        ...(userAgent === undefined ? {} : { userAgent }),
        url: row.url,
        headers: signedHeaders(
          signingSecrets(box, row, now),
          messageId,
          Math.floor(now / 1000),
          body,
        ),
        body,
      });
      // Without a response, answer when the send timeout would have ended whatever happened.
      if (result.statusCode === null) await untilTimeout(started, sender.timeoutMs);
      return {
        ok: result.ok,
        status_code: result.statusCode,
        duration_ms: result.statusCode === null ? null : result.durationMs,
        error: result.error,
      };
    },

    async deliveries(principal: Principal, id: string, limit: number) {
      const row = await mustFind(accountOf(principal), id);
      return repo.listDeliveries(db, row.id, limit);
    },

    /** Queues the event of one delivery again, as a new delivery due now. */
    async redeliver(principal: Principal, id: string, deliveryId: string, ip: string) {
      const accountId = accountOf(principal);
      const row = await mustFind(accountId, id);
      const [original] = await repo.listDeliveries(db, row.id, 1, deliveryId);
      if (original === undefined) {
        throw new AppError('NOT_FOUND', `No delivery ${deliveryId} for webhook ${id}.`);
      }
      if (!row.enabled) {
        throw new AppError('CONFLICT', 'This webhook is disabled; enable it before redelivering.');
      }
      await throttle(accountId, REDELIVERY_RULE, 'redeliveries');
      const at = new Date(clock.now());
      const newId = prefixedId('dlv');
      await db.transaction(async (tx) => {
        await repo.insertDelivery(tx, {
          id: newId,
          endpointId: row.id,
          eventId: original.event_id,
          at,
        });
        await recordAudit(tx, {
          accountId,
          actor: actorOf(principal),
          action: 'webhooks.redeliver',
          data: { webhook_id: id, delivery_id: deliveryId, new_delivery_id: newId },
          ip,
          at,
        });
      });
      const [created] = await repo.listDeliveries(db, row.id, 1, newId);
      return created as repo.DeliveryRow;
    },

    /**
     * The outbox fan-out for a recorded event, in the transaction that recorded it: one pending
     * delivery per subscribed, enabled endpoint. Returns how many.
     */
    /** The outbox fan-out of a recorded event, in the transaction that recorded it. */
    publish,
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;

/** The fan-out alone, for processes that record events but hold no secrets (the CLI). */
export function webhookPublisher(plans: Readonly<Record<PlanId, Plan>>, clock: Clock) {
  const webhookPlans = Object.values(plans)
    .filter((p) => p.webhooks)
    .map((p) => p.id);
  return (tx: Queryable, event: { id: string; type: string }): Promise<number> =>
    repo.insertDeliveriesForEvent(tx, event, webhookPlans, new Date(clock.now()));
}

/**
 * Records an event of one account (`export.completed`, `export.failed`) and queues its delivery
 * to that account's enabled endpoints subscribed to it, in the caller's transaction.
 */
export function accountEventPublisher(plans: Readonly<Record<PlanId, Plan>>, clock: Clock) {
  const webhookPlans = Object.values(plans)
    .filter((p) => p.webhooks)
    .map((p) => p.id);
  return async (
    tx: Queryable,
    event: { type: EventType; accountId: string; data: unknown },
  ): Promise<number> => {
    const at = new Date(clock.now());
    const id = prefixedId('evt');
    await insertEvent(tx, { id, type: event.type, createdAt: at, data: event.data });
    return repo.insertDeliveriesForEvent(
      tx,
      { id, type: event.type },
      webhookPlans,
      at,
      event.accountId,
    );
  };
}

/**
 * Records a service-wide event (`status.incident`, `status.maintenance`) and queues its delivery
 * to every enabled endpoint subscribed to it, in the caller's transaction.
 */
export function serviceEventPublisher(plans: Readonly<Record<PlanId, Plan>>, clock: Clock) {
  const fanOut = webhookPublisher(plans, clock);
  return async (tx: Queryable, event: { type: EventType; data: unknown }): Promise<void> => {
    const id = prefixedId('evt');
    await insertEvent(tx, {
      id,
      type: event.type,
      createdAt: new Date(clock.now()),
      data: event.data,
    });
    await fanOut(tx, { id, type: event.type });
  };
}
