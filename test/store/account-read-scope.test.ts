import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { clonePglite, type TestDb } from '../helpers/db.js';

const MIGRATION = readFileSync(
  new URL('../../src/store/migrations/0006_account_read_scope.sql', import.meta.url),
  'utf8',
);

describe('migration 0006: account:read for keys that could change the account', () => {
  let t: TestDb;
  before(async () => {
    t = await clonePglite();
  });
  after(() => t.cleanup());

  it('adds account:read beside account:write only, once', async () => {
    const at = '2026-11-22T10:00:00Z';
    await t.db.query(
      `INSERT INTO accounts (id, email, password_hash, created_at, updated_at)
       VALUES ('acct_m', 'm@example.com', 'x', $1, $1)`,
      [at],
    );
    const keys: [string, string[] | null][] = [
      ['full', ['salary:read', 'account:write', 'keys:write']],
      ['salary', ['salary:read']],
      ['unscoped', null],
    ];
    for (const [id, scopes] of keys) {
      await t.db.query(
        `INSERT INTO api_keys (id, account_id, name, prefix, key_hash, scopes, created_at, updated_at)
         VALUES ($1, 'acct_m', $1, 'p', $1, $2, $3, $3)`,
        [id, scopes, at],
      );
    }
    await t.db.query(MIGRATION);
    await t.db.query(MIGRATION);
    const rows = await t.db.query<{ id: string; scopes: string[] | null }>(
      `SELECT id, scopes FROM api_keys WHERE account_id = 'acct_m' ORDER BY id`,
    );
    assert.deepEqual(Object.fromEntries(rows.map((r) => [r.id, r.scopes])), {
      full: ['salary:read', 'account:write', 'keys:write', 'account:read'],
      salary: ['salary:read'],
      unscoped: null,
    });
  });
});
