import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.js';

const PASSWORD = 'a long enough passphrase';

describe('log-in throttle: one bucket per address and per account, reserved before hashing', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  const logIn = (email: string, password: string, remoteAddress: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/sessions',
      payload: { email, password },
      remoteAddress,
    });
  const signUp = async (email: string) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/accounts',
      payload: { email, password: PASSWORD },
      remoteAddress: '192.0.2.200',
    });
    assert.equal(res.statusCode, 201, res.body);
  };

  it('counts every spelling of an address (case, spaces, tabs, NFC) in one account bucket', async () => {
    await signUp('alice@example.com');
    const spellings = [
      ' alice@example.com',
      'alice@example.com\t',
      'ALICE@Example.COM',
      '\u00a0Alice@example.com \n',
      'alice@example.com',
    ];
    for (let i = 0; i < 10; i++) {
      const res = await logIn(spellings[i % spellings.length]!, 'wrong password', `192.0.2.${i}`);
      assert.equal(res.statusCode, 401, res.body);
    }
    const locked = await logIn(' Alice@Example.com\t', PASSWORD, '192.0.2.50');
    assert.equal(locked.statusCode, 429, locked.body);
    assert.equal(locked.json().code, 'TOO_MANY_ATTEMPTS');
    assert.ok(Number(locked.headers['retry-after']) > 0);
  });

  it('a composed and a decomposed spelling are one account', async () => {
    await signUp('jos\u00e9@example.com');
    const res = await logIn('jose\u0301@EXAMPLE.com ', PASSWORD, '192.0.2.60');
    assert.equal(res.statusCode, 201, res.body);
  });

  it('40 parallel wrong passwords from one address: at most the account limit are evaluated', async () => {
    await signUp('bob@example.com');
    const results = await Promise.all(
      Array.from({ length: 40 }, () => logIn('bob@example.com', 'wrong password', '203.0.113.9')),
    );
    const statuses = results.map((r) => r.statusCode);
    assert.equal(statuses.filter((s) => s === 401).length, 10, statuses.join(','));
    assert.equal(statuses.filter((s) => s === 429).length, 30);
  });

  it('a successful log-in is given back: it does not use up the budget', async () => {
    await signUp('carol@example.com');
    for (let i = 0; i < 12; i++)
      assert.equal((await logIn('carol@example.com', PASSWORD, `198.18.0.${i}`)).statusCode, 201);
    for (let i = 0; i < 10; i++)
      assert.equal(
        (await logIn('carol@example.com', 'nope nope', `198.18.1.${i}`)).statusCode,
        401,
      );
    assert.equal((await logIn('carol@example.com', PASSWORD, '198.18.2.1')).statusCode, 429);
  });

  const addressCases: [string, (i: number) => string, string][] = [
    ['IPv6 addresses of one /64', (i) => `2001:db8:1::${i + 1}`, '2001:db8:1::ffff:2'],
    ['IPv4 and its IPv4-mapped IPv6 form', () => '198.51.100.50', '::ffff:198.51.100.50'],
  ];
  for (const [name, address, other] of addressCases) {
    it(`counts ${name} in one address bucket`, async () => {
      for (let i = 0; i < 20; i++) {
        // A different unknown account each time: only the address budget is spent.
        const res = await logIn(`nobody-${i}-${name.length}@example.com`, 'wrong', address(i));
        assert.equal(res.statusCode, 401, res.body);
      }
      const res = await logIn(`someone-${name.length}@example.com`, 'wrong', other);
      assert.equal(res.statusCode, 429, res.body);
    });
  }
});
