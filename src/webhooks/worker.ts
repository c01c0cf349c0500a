import { recordAudit } from '../audit/index.js';
import type { Clock } from '../lib/clock.js';
import { createQueue, type Queue } from '../lib/queue.js';
import type { Logger } from '../lib/logger.js';
import { enqueueNotice } from '../notices/index.js';
import type { SecretBox } from '../lib/secret-box.js';
import type { Db, Queryable } from '../store/index.js';
import { DISABLE_AFTER_FAILING_MS, retryDelay } from './backoff.js';
import * as repo from './repo.js';
import type { SendResult, WebhookSender } from './sender.js';
import { SEND_TIMEOUT_MS, userAgentFor } from './sender.js';
import { payloadOf, signingSecrets } from './service.js';
import { signedHeaders } from './signature.js';

/** A claim outlives the longest send (15 s) by a wide margin, so it is never taken over early. */
export const LEASE_MS = 4 * SEND_TIMEOUT_MS;

/** The `webhooks.deliver` queue: `runOnce` claims and sends due deliveries until none is due. */
export type WebhookWorker = Queue;

/**
 * The `webhooks.deliver` job: claims due deliveries from the outbox (each claimed by one
 * worker, however many processes share the database), signs and sends them, and records the
 * outcome: success, a retry with backoff, or failure; 410 and five days of failures disable
 * the endpoint.
 */
export function createWebhookWorker(deps: {
  db: Db;
  clock: Clock;
  box: SecretBox;
  sender: WebhookSender;
  logger: Logger;
  concurrency: number;
  random?: () => number;
  /** Told each attempt's result (metrics). */
  onAttempt?: (ok: boolean) => void;
  /** A white-label account's labelling (its webhooks' User-Agent names the licensee). */
  labelling?: (accountId: string) => { licensee: string } | null;
}): WebhookWorker {
  const { db, clock, box, sender, logger } = deps;

  async function disable(tx: Queryable, d: repo.ClaimedDelivery, reason: string, at: Date) {
    await repo.updateEndpoint(tx, d.endpointId, { enabled: false, disabledReason: reason }, at);
    await repo.failPendingDeliveries(tx, d.endpointId, `endpoint disabled: ${reason}`, at);
    await recordAudit(tx, {
      accountId: d.accountId,
      actor: 'system',
      action: 'webhooks.disable',
      data: { webhook_id: d.endpointId, reason },
      at,
    });
    await enqueueNotice(
      tx,
      {
        accountId: d.accountId,
        kind: 'webhooks.endpoint_disabled',
        data: { webhook_id: d.endpointId, url: d.url, reason },
      },
      at,
    );
    logger.warn({ webhook: d.endpointId, reason }, 'webhook endpoint disabled');
  }

  async function deliver(d: repo.ClaimedDelivery, id: string): Promise<void> {
    const startedAt = new Date(clock.now());
    let result: SendResult;
    try {
      const body = payloadOf(d.eventType, d.eventCreatedAt, d.eventData);
      const secrets = signingSecrets(box, d, startedAt.getTime());
      const headers = signedHeaders(
        secrets,
        d.eventId,
        Math.floor(startedAt.getTime() / 1000),
        body,
      );
      const userAgent = userAgentFor(deps.labelling?.(d.accountId) ?? null);
      result = await sender.send({
        url: d.url,
        headers,
        body,
        ...(userAgent === undefined ? {} : { userAgent }),
      });
    } catch (error) {
      // A secret that does not decrypt (SECRET_KEY changed) or a sender fault: a failed attempt.
      result = {
        ok: false,
        statusCode: null,
        error: 'not sent',
        detail: `not sent: ${(error as Error).message}`,
        durationMs: 0,
      };
    }
    deps.onAttempt?.(result.ok);
    if (!result.ok)
      logger.info(
        { delivery: d.id, webhook: d.endpointId, status: result.statusCode, detail: result.detail },
        'webhook attempt failed',
      );
    // An attempt without a response is scheduled as if it had waited the full send timeout, and a
    // failure streak starts when its first attempt started, so the delivery log's times cannot
    // tell a refused connection from one that timed out (a port-scan oracle).
    const at = new Date(
      result.statusCode === null
        ? Math.max(clock.now(), startedAt.getTime() + sender.timeoutMs)
        : clock.now(),
    );
    await db.transaction(async (tx) => {
      const gone = result.statusCode === 410;
      const delay = result.ok || gone ? null : retryDelay(d.attempts, deps.random);
      const status = result.ok ? 'succeeded' : delay === null ? 'failed' : 'pending';
      const settled = await repo.settleDelivery(
        tx,
        d.id,
        id,
        {
          status,
          nextAttemptAt: delay === null ? null : new Date(at.getTime() + delay),
          statusCode: result.statusCode,
          error: result.error,
        },
        at,
      );
      if (!settled) return; // the lease ran out and another worker owns the delivery now
      await repo.insertAttempt(tx, {
        deliveryId: d.id,
        attempt: d.attempts,
        startedAt,
        durationMs: result.durationMs,
        statusCode: result.statusCode,
        ok: result.ok,
        error: result.error,
      });
      if (result.ok) {
        await repo.clearFailing(tx, d.endpointId);
      } else if (gone) {
        await disable(tx, d, 'the endpoint answered 410 Gone', at);
      } else {
        const since = await repo.markFailing(tx, d.endpointId, startedAt);
        if (since !== null && at.getTime() - Date.parse(since) >= DISABLE_AFTER_FAILING_MS) {
          await disable(tx, d, 'deliveries failed for five days', at);
        }
      }
    });
    logger.info(
      {
        delivery: d.id,
        webhook: d.endpointId,
        event: d.eventId,
        attempt: d.attempts,
        status: result.statusCode,
        ok: result.ok,
      },
      'webhook delivery attempted',
    );
  }

  const queue = createQueue<repo.ClaimedDelivery>({
    name: 'webhooks.deliver',
    concurrency: deps.concurrency,
    leaseMs: LEASE_MS,
    clock,
    logger,
    claim: (holder, now, leaseUntil, limit) => repo.claimDue(db, holder, now, leaseUntil, limit),
    handle: deliver,
    releaseClaims: () => repo.releaseAllClaims(db),
  });
  return queue;
}
