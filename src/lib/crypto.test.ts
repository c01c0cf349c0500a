import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { hashPassword, setPasswordHashCost, verifyPassword } from './crypto.js';

describe('password hashes', () => {
  after(() => setPasswordHashCost(32768));

  it('are scrypt at N = 2^15, r = 8, p = 1 and verify only their own password', async () => {
    const stored = await hashPassword('a long enough passphrase');
    assert.match(stored, /^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    assert.equal(await verifyPassword('a long enough passphrase', stored), true);
    assert.equal(await verifyPassword('a long enough passphrasE', stored), false);
  });

  it('at a lowered cost name it, and hashes made at either cost still verify', async () => {
    const strong = await hashPassword('first passphrase');
    setPasswordHashCost(1024);
    const cheap = await hashPassword('second passphrase');
    assert.match(cheap, /^scrypt\$1024\$8\$1\$/);
    assert.equal(await verifyPassword('second passphrase', cheap), true);
    assert.equal(await verifyPassword('first passphrase', strong), true);
    assert.equal(await verifyPassword('second passphrase', strong), false);
  });
});
