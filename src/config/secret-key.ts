import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from './config.js';
import { ConfigError } from './config.js';

export const SECRET_KEY_FILE = 'secret-key';

/**
 * The key that encrypts stored secrets. SECRET_KEY when set. In embedded mode (no
 * DATABASE_URL) one is generated once into DATA_DIR/secret-key (mode 0600) and reused; with
 * DATABASE_URL several instances must share one key, so it has to be given.
 */
export function resolveSecretKey(config: Config): string {
  if (config.secretKey !== undefined) return config.secretKey;
  if (config.databaseUrl !== undefined) {
    throw new ConfigError([
      'SECRET_KEY must be set when DATABASE_URL is set (every instance needs the same key to read stored webhook secrets)',
    ]);
  }
  const file = join(config.dataDir, SECRET_KEY_FILE);
  if (existsSync(file)) {
    chmodSync(file, 0o600);
    const stored = readFileSync(file, 'utf8').trim();
    if (stored.length >= 32) return stored;
    throw new ConfigError([`${file} must hold at least 32 characters`]);
  }
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const key = randomBytes(32).toString('base64url');
  writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return key;
}
