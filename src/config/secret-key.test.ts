import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigError, loadConfig } from './config.js';
import { resolveSecretKey, SECRET_KEY_FILE } from './secret-key.js';

describe('resolveSecretKey', () => {
  const dir = mkdtempSync(join(tmpdir(), 'salary-api-secret-key-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('uses SECRET_KEY when set', () => {
    const key = 'k'.repeat(32);
    assert.equal(resolveSecretKey(loadConfig({ SECRET_KEY: key, DATA_DIR: dir })), key);
  });

  it('generates one into DATA_DIR (mode 0600) in embedded mode, and reuses it', () => {
    const config = loadConfig({ DATA_DIR: join(dir, 'data') });
    const first = resolveSecretKey(config);
    const file = join(dir, 'data', SECRET_KEY_FILE);
    assert.ok(first.length >= 32);
    assert.equal(readFileSync(file, 'utf8').trim(), first);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(resolveSecretKey(config), first);
  });

  it('is a configuration error with DATABASE_URL and no SECRET_KEY', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://127.0.0.1/x', DATA_DIR: dir });
    assert.throws(() => resolveSecretKey(config), ConfigError);
  });
});
