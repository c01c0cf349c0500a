import { createHmac, hkdfSync } from 'node:crypto';
import { constantTimeEqual } from './crypto.js';

/**
 * The tokens of mailed single-use links (e-mail verification, password reset):
 * `<id>.<base64url HMAC-SHA256 of purpose and id>`, under a key derived from SECRET_KEY for this
 * use only. The id alone (kept in the database and the notice outbox) cannot be turned into a
 * token without the key; expiry and single use are the database row's.
 */
export interface ActionTokens {
  token(purpose: string, id: string): string;
  /** The id a token names when its signature is good for `purpose`; null otherwise. */
  idOf(purpose: string, token: string): string | null;
}

/** `secretKey`: the key, or what reads it when a token is first signed or checked. */
export function createActionTokens(secretKey: string | (() => string)): ActionTokens {
  let key: Buffer | undefined;
  const sign = (purpose: string, id: string): string => {
    key ??= Buffer.from(
      hkdfSync(
        'sha256',
        typeof secretKey === 'string' ? secretKey : secretKey(),
        'salary-api',
        'action-tokens',
        32,
      ),
    );
    return createHmac('sha256', key).update(`${purpose}\n${id}`).digest('base64url');
  };
  return {
    token: (purpose, id) => `${id}.${sign(purpose, id)}`,
    idOf(purpose, token) {
      const match = /^([A-Za-z0-9_-]{1,64})\.([A-Za-z0-9_-]{43})$/.exec(token);
      if (match === null) return null;
      const [, id, signature] = match as unknown as [string, string, string];
      return constantTimeEqual(signature, sign(purpose, id)) ? id : null;
    },
  };
}
