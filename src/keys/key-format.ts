import { randomSecret, sha256Hex } from '../lib/crypto.js';

export const KEY_PREFIX = 'sk_live_';
/** Characters of a key shown in listings (prefix + 4 random characters). */
const DISPLAY_LENGTH = KEY_PREFIX.length + 4;

/** A new API key: 256 random bits behind a readable prefix; only its hash is stored. */
export function generateKey(): { key: string; prefix: string; hash: string } {
  const key = randomSecret(KEY_PREFIX, 32);
  return { key, prefix: key.slice(0, DISPLAY_LENGTH), hash: sha256Hex(key) };
}
