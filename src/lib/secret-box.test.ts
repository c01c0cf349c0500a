import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createSecretBox } from './secret-box.js';

describe('createSecretBox', () => {
  const key = 'k'.repeat(40);

  it('opens what it sealed, with a fresh IV each time', () => {
    const box = createSecretBox(key, 'webhooks');
    const a = box.seal('whsec_abc');
    const b = box.seal('whsec_abc');
    assert.notEqual(a, b);
    assert.ok(!a.includes('whsec_abc'));
    assert.equal(box.open(a), 'whsec_abc');
    assert.equal(box.open(b), 'whsec_abc');
  });

  it('refuses another key, another purpose and a tampered value', () => {
    const sealed = createSecretBox(key, 'webhooks').seal('secret');
    assert.throws(() => createSecretBox('x'.repeat(40), 'webhooks').open(sealed));
    assert.throws(() => createSecretBox(key, 'exports').open(sealed));
    const tampered = `${sealed.slice(0, -2)}${sealed.endsWith('A') ? 'B' : 'A'}A`;
    assert.throws(() => createSecretBox(key, 'webhooks').open(tampered));
    assert.throws(() => createSecretBox(key, 'webhooks').open('plain'));
  });
});
