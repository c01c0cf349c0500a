import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AddressMatcher, allowlistProblems } from './allowlist.js';

/**
 * Each entry with the addresses just inside and just outside it: the first and last address of
 * the range and their neighbours, so a range one bit wider or narrower fails a case.
 */
const EDGES: { entry: string; inside: string[]; outside: string[] }[] = [
  {
    entry: '203.0.113.0/24',
    inside: ['203.0.113.0', '203.0.113.255', '::ffff:203.0.113.0', '::ffff:203.0.113.255'],
    outside: ['203.0.112.255', '203.0.114.0', '::ffff:203.0.112.255', '::ffff:203.0.114.0'],
  },
  {
    entry: '203.0.113.7',
    inside: ['203.0.113.7', '::ffff:203.0.113.7', '::ffff:cb00:7107'],
    outside: ['203.0.113.6', '203.0.113.8', '::ffff:203.0.113.6', '::ffff:203.0.113.8'],
  },
  {
    entry: '203.0.113.7/32',
    inside: ['203.0.113.7'],
    outside: ['203.0.113.6', '203.0.113.8'],
  },
  {
    entry: '2001:db8:abcd::/48',
    inside: ['2001:db8:abcd::', '2001:db8:abcd:ffff:ffff:ffff:ffff:ffff', '2001:db8:abcd:12::1'],
    outside: ['2001:db8:abcc:ffff:ffff:ffff:ffff:ffff', '2001:db8:abce::'],
  },
  {
    entry: '2001:db8:abcd:12::/64',
    inside: ['2001:db8:abcd:12::', '2001:db8:abcd:12:ffff:ffff:ffff:ffff'],
    outside: ['2001:db8:abcd:11:ffff:ffff:ffff:ffff', '2001:db8:abcd:13::'],
  },
  {
    entry: '2001:db8::7/128',
    inside: ['2001:db8::7', '2001:0db8:0000:0000:0000:0000:0000:0007'],
    outside: ['2001:db8::6', '2001:db8::8'],
  },
  {
    entry: '2001:db8::7',
    inside: ['2001:db8::7'],
    outside: ['2001:db8::6', '2001:db8::8'],
  },
  {
    // An IPv4 range written as IPv4-mapped IPv6 is that IPv4 range: both spellings match.
    entry: '::ffff:203.0.113.0/120',
    inside: ['203.0.113.0', '203.0.113.255', '::ffff:203.0.113.0', '::ffff:203.0.113.255'],
    outside: ['203.0.112.255', '203.0.114.0', '::ffff:203.0.112.255', '::ffff:203.0.114.0'],
  },
  {
    entry: '::ffff:203.0.113.7',
    inside: ['203.0.113.7', '::ffff:203.0.113.7'],
    outside: ['203.0.113.6', '203.0.113.8', '::ffff:203.0.113.8'],
  },
  {
    entry: '0.0.0.0/0',
    inside: ['0.0.0.0', '255.255.255.255', '::ffff:198.51.100.1'],
    outside: ['2001:db8::1', '::1'],
  },
  {
    entry: '::/0',
    inside: ['::', '2001:db8::1', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', '::ffff:198.51.100.1'],
    outside: ['198.51.100.1'],
  },
];

describe('AddressMatcher at the edges of each range', () => {
  for (const { entry, inside, outside } of EDGES) {
    const matcher = new AddressMatcher([entry]);
    it(`${entry} admits ${inside.join(', ')}`, () => {
      assert.deepEqual(
        inside.filter((a) => !matcher.matches(a)),
        [],
        'addresses inside the range refused',
      );
    });
    it(`${entry} refuses ${outside.join(', ')}`, () => {
      assert.deepEqual(
        outside.filter((a) => matcher.matches(a)),
        [],
        'addresses outside the range admitted',
      );
    });
  }

  it('accepts every entry of the table as valid', () => {
    assert.deepEqual(allowlistProblems(EDGES.map((e) => e.entry)), []);
  });

  it('refuses entries whose meaning depends on old shorthand rules', () => {
    for (const entry of [
      '010.0.0.1',
      '1.2.3',
      '0x7f.0.0.1',
      '2130706433',
      '1.2.3.4/08',
      '1.2.3.4/33',
      '1.2.3.4/',
      '10.0.0.0/8/8',
      'fe80::1%eth0',
      '2001:db8::/129',
      ' 1.2.3.4',
      'garbage',
    ])
      assert.equal(allowlistProblems([entry]).length, 1, entry);
    for (const entry of ['0.0.0.0/0', '10.0.0.1', '203.0.113.0/24', '::/0', '::ffff:10.0.0.1'])
      assert.deepEqual(allowlistProblems([entry]), [], entry);
  });

  it('matches when any entry does, and never for something that is not an address', () => {
    const matcher = new AddressMatcher(['203.0.113.7', '2001:db8:abcd:12::/64']);
    assert.equal(matcher.matches('203.0.113.7'), true);
    assert.equal(matcher.matches('2001:db8:abcd:12::99'), true);
    assert.equal(matcher.matches('203.0.113.8'), false);
    for (const junk of ['', 'garbage', '203.0.113.7/32', '203.0.113.256', 'unknown'])
      assert.equal(matcher.matches(junk), false, junk);
    assert.equal(new AddressMatcher([]).matches('203.0.113.7'), false);
  });
});

describe('AddressMatcher.covers at the edges (a key may not widen the list it was made under)', () => {
  const cases: [string[], string, boolean][] = [
    [['203.0.113.0/24'], '203.0.113.0/24', true],
    [['203.0.113.0/24'], '203.0.113.0/25', true],
    [['203.0.113.0/24'], '203.0.113.128/25', true],
    [['203.0.113.0/24'], '203.0.113.255', true],
    [['203.0.113.0/24'], '203.0.113.0/23', false],
    [['203.0.113.0/24'], '203.0.112.0/24', false],
    [['203.0.113.0/24'], '203.0.114.0', false],
    [['203.0.113.0/24'], '0.0.0.0/0', false],
    [['203.0.113.0/24'], '::ffff:203.0.113.0/120', true],
    [['203.0.113.0/24'], '::ffff:203.0.113.0/119', false],
    [['::ffff:203.0.113.0/120'], '203.0.113.7', true],
    [['::ffff:203.0.113.0/120'], '203.0.114.0', false],
    [['203.0.113.7'], '203.0.113.7/32', true],
    [['203.0.113.7'], '203.0.113.6/31', false],
    [['2001:db8:abcd::/48'], '2001:db8:abcd:ffff::/64', true],
    [['2001:db8:abcd::/48'], '2001:db8:abcc::/47', false],
    [['2001:db8:abcd:12::/64'], '2001:db8:abcd:12::1', true],
    [['2001:db8:abcd:12::/64'], '2001:db8:abcd:13::', false],
    [['2001:db8::7/128'], '2001:db8::6/127', false],
    [['203.0.113.0/24', '203.0.114.0/24'], '203.0.113.0/23', false],
  ];
  for (const [list, entry, covered] of cases)
    it(`${list.join(', ')} ${covered ? 'covers' : 'does not cover'} ${entry}`, () => {
      assert.equal(new AddressMatcher(list).covers(entry), covered);
    });
});
