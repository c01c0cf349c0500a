import type { SecretBox } from '../lib/secret-box.js';
import {
  checkTargetUrl,
  payloadOf,
  signedHeaders,
  type SendResult,
  type WebhookSender,
} from '../webhooks/index.js';
import { DeliveryError } from './delivery-error.js';
import type { ExportRow } from './repo.js';
import type { DestinationSecret } from './types.js';

/** The signing secret (`whsec_…`) of a webhook destination, opened. */
export function destinationSecret(box: SecretBox, e: Pick<ExportRow, 'secretEnc'>): string {
  const secret = JSON.parse(box.open(e.secretEnc ?? '')) as DestinationSecret;
  if (!('webhook_secret' in secret)) throw new Error('not a webhook destination');
  return secret.webhook_secret;
}

/**
 * Sends one signed event (Standard Webhooks headers, the destination's own secret) through the
 * webhooks' sender, so the same outbound address guard applies; anything but a 2xx answer is
 * a DeliveryError worth retrying (a URL the guard refuses is not).
 */
export async function announce(
  sender: WebhookSender,
  url: string,
  secret: string,
  messageId: string,
  type: string,
  data: unknown,
  nowMs: number,
  allowPrivate: boolean,
): Promise<void> {
  const check = checkTargetUrl(url, allowPrivate);
  if (!check.ok) throw new DeliveryError(`the destination URL is refused: ${check.reason}`, false);
  const result = await sendSigned(sender, url, secret, messageId, type, data, nowMs);
  if (!result.ok)
    throw new DeliveryError(`the receiver did not accept the announcement: ${result.error}`, true);
}

/** One signed event through the webhooks' sender, whatever the answer (checked URL). */
export function sendSigned(
  sender: WebhookSender,
  url: string,
  secret: string,
  messageId: string,
  type: string,
  data: unknown,
  nowMs: number,
): Promise<SendResult> {
  const body = payloadOf(type, new Date(nowMs).toISOString(), data);
  return sender.send({
    url,
    headers: signedHeaders([secret], messageId, Math.floor(nowMs / 1000), body),
    body,
  });
}
