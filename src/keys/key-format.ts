import { randomSecret, sha256Hex } from '../lib/crypto.js';

export const KEY_PREFIX = 'sk_live_';
export const TEST_KEY_PREFIX = 'sk_test_';
/** Characters of a key shown in listings (prefix + 4 random characters). */
const RANDOM_SHOWN = 4;

export type KeyMode = 'live' | 'test';
export const KEY_MODES = ['live', 'test'] as const satisfies readonly KeyMode[];

/** A new API key: 256 random bits behind a readable prefix; only its hash is stored. */
export function generateKey(mode: KeyMode = 'live'): { key: string; prefix: string; hash: string } {
  const prefix = mode === 'test' ? TEST_KEY_PREFIX : KEY_PREFIX;
  const key = randomSecret(prefix, 32);
  return { key, prefix: key.slice(0, prefix.length + RANDOM_SHOWN), hash: sha256Hex(key) };
}
