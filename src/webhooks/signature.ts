import { createHmac, randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';

/** A Standard Webhooks signing secret: `whsec_` and 32 random bytes in base64. */
export function generateSigningSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/** `v1,<base64 HMAC-SHA256 of id.timestamp.body>` keyed with the secret's decoded bytes. */
export function signatureOf(
  secret: string,
  id: string,
  timestampSeconds: number,
  body: string,
): string {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  const mac = createHmac('sha256', key)
    .update(`${id}.${timestampSeconds}.${body}`)
    .digest('base64');
  return `v1,${mac}`;
}

/** The Standard Webhooks headers for one attempt; several secrets sign during a rotation. */
export function signedHeaders(
  secrets: readonly string[],
  id: string,
  timestampSeconds: number,
  body: string,
): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': secrets.map((s) => signatureOf(s, id, timestampSeconds, body)).join(' '),
  };
}
