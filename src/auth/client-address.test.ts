import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addressBucket } from './client-address.js';

describe('addressBucket', () => {
  const cases: [string, string][] = [
    ['192.0.2.1', 'addr:192.0.2.1'],
    ['::ffff:192.0.2.1', 'addr:192.0.2.1'],
    ['2001:db8:aa:bb:1:2:3:4', 'addr:2001:db8:aa:bb::/64'],
    ['2001:0db8:00aa:00bb::9', 'addr:2001:db8:aa:bb::/64'],
    ['::1', 'addr:0:0:0:0::/64'],
  ];
  for (const [input, bucket] of cases)
    it(`${input} → ${bucket}`, () => assert.equal(addressBucket(input), bucket));
});
