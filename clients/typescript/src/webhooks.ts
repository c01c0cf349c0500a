import { Webhook, WebhookVerificationError } from 'standardwebhooks';

/** A webhook event of the API (`data.updated`, `export.completed`, …). */
export interface WebhookEvent {
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

/** The signature, timestamp or id of a delivery did not check out: do not act on it. */
export class WebhookSignatureError extends Error {
  override readonly name = 'WebhookSignatureError';
}

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

/**
 * Verifies a delivery as Standard Webhooks specifies (HMAC-SHA256 of id, timestamp and the raw
 * body with the endpoint's `whsec_` secret; a timestamp more than 5 minutes off is refused) and
 * returns its event. `body` is the raw request body, exactly as received.
 */
export function verifyWebhook(secret: string, body: string, headers: HeaderBag): WebhookEvent {
  const flat: Record<string, string> = {};
  const entries = headers instanceof Headers ? [...headers.entries()] : Object.entries(headers);
  for (const [name, value] of entries) {
    if (value !== undefined)
      flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  try {
    return new Webhook(secret).verify(body, flat) as WebhookEvent;
  } catch (error) {
    if (error instanceof WebhookVerificationError) throw new WebhookSignatureError(error.message);
    throw error;
  }
}
