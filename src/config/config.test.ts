import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { baseUrlOf, ConfigError, loadConfig } from './config.js';

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({}, '/srv/app');
    assert.equal(config.port, 3000);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.dataDir, '/srv/app/data');
    assert.equal(config.databaseUrl, undefined);
    assert.deepEqual(config.trustProxy, []);
    assert.equal(config.outboundAllowPrivateTargets, false);
    assert.equal(config.redisUrl, undefined);
    assert.equal(config.redisKeyPrefix, 'salary-api:');
    assert.equal(config.redisTimeoutMs, 500);
    assert.ok(Object.isFrozen(config));
  });

  it('reads the Redis settings', () => {
    const config = loadConfig({
      REDIS_URL: 'redis://cache.internal:6380/2',
      REDIS_KEY_PREFIX: 'eu1:',
      REDIS_TIMEOUT_SECONDS: '0.25',
    });
    assert.equal(config.redisUrl, 'redis://cache.internal:6380/2');
    assert.equal(config.redisKeyPrefix, 'eu1:');
    assert.equal(config.redisTimeoutMs, 250);
    assert.throws(
      () => loadConfig({ REDIS_URL: 'http://x', REDIS_TIMEOUT_SECONDS: '0' }),
      (e) => {
        assert.ok(e instanceof ConfigError);
        assert.equal(e.problems.length, 2);
        return true;
      },
    );
  });

  it('reads durations in seconds, decimals allowed', () => {
    const config = loadConfig({
      CREDENTIAL_REFRESH_SECONDS: '2.5',
      WEBHOOK_POLL_SECONDS: '0.1',
      NOTICE_POLL_SECONDS: '0',
      EXPORT_POLL_SECONDS: '45',
      EXPORT_HEARTBEAT_SECONDS: '120',
    });
    assert.equal(config.credentialRefreshMs, 2500);
    assert.equal(config.webhookPollMs, 100);
    assert.equal(config.noticePollMs, 0);
    assert.equal(config.exportPollMs, 45_000);
    assert.equal(config.exportHeartbeatMs, 120_000);
    assert.deepEqual(config.warnings, []);
    assert.throws(
      () => loadConfig({ WEBHOOK_POLL_SECONDS: '1s', EXPORT_POLL_SECONDS: '-1' }),
      (e) => {
        assert.ok(e instanceof ConfigError);
        assert.match(
          e.problems[0]!,
          /WEBHOOK_POLL_SECONDS must be a number of seconds from 0 to 600 \(got "1s"\)/,
        );
        assert.equal(e.problems.length, 2);
        return true;
      },
    );
  });

  it('still reads the former names, in their units, with a warning naming the new one', () => {
    const config = loadConfig({
      REDIS_TIMEOUT_MS: '250',
      CREDENTIAL_REFRESH_MS: '30000',
      WEBHOOK_POLL_MS: '100',
      NOTICE_POLL_MS: '0',
      EXPORT_POLL_MS: '600000',
      EXPORT_HEARTBEAT_MS: '100',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    });
    assert.equal(config.redisTimeoutMs, 250);
    assert.equal(config.credentialRefreshMs, 30_000);
    assert.equal(config.webhookPollMs, 100);
    assert.equal(config.noticePollMs, 0);
    assert.equal(config.exportPollMs, 600_000);
    assert.equal(config.exportHeartbeatMs, 100);
    assert.equal(config.outboundAllowPrivateTargets, true);
    assert.equal(config.warnings.length, 7);
    assert.ok(
      config.warnings.includes(
        'REDIS_TIMEOUT_MS is read as REDIS_TIMEOUT_SECONDS=0.25; rename it, as the former name will stop being read',
      ),
      config.warnings.join('\n'),
    );
    assert.ok(
      config.warnings.some((w) =>
        w.startsWith(
          'WEBHOOK_ALLOW_PRIVATE_TARGETS is read as OUTBOUND_ALLOW_PRIVATE_TARGETS=true',
        ),
      ),
    );

    // The new name wins; the former one is then ignored, and said so.
    const both = loadConfig({ WEBHOOK_POLL_SECONDS: '2', WEBHOOK_POLL_MS: '100' });
    assert.equal(both.webhookPollMs, 2000);
    assert.deepEqual(both.warnings, [
      'WEBHOOK_POLL_MS is ignored: it is the former name of WEBHOOK_POLL_SECONDS, which is set',
    ]);
    // A bad value under a former name is reported under it, with its new name.
    assert.throws(
      () => loadConfig({ REDIS_TIMEOUT_MS: '0.5', EXPORT_POLL_MS: '9999999' }),
      (e) => {
        assert.ok(e instanceof ConfigError);
        assert.deepEqual(e.problems, [
          'REDIS_TIMEOUT_MS (now REDIS_TIMEOUT_SECONDS, in seconds) must be a whole number of milliseconds (got "0.5")',
          'EXPORT_POLL_MS (now EXPORT_POLL_SECONDS, in seconds) must be a number of seconds from 0 to 600 (got "9999.999")',
        ]);
        return true;
      },
    );
  });

  it('lists every bad variable at once', () => {
    try {
      loadConfig({
        PORT: '70000',
        TRUST_PROXY: '10.0.0.0/99',
        PLAN_OVERRIDES: '{"gold":{}}',
        LOG_LEVEL: 'loud',
        ACCESS_LOG: 'maybe',
      });
      assert.fail('should throw');
    } catch (error) {
      assert.ok(error instanceof ConfigError);
      assert.equal(error.problems.length, 5, error.message);
    }
  });

  it('parses plan overrides and trusted proxies', () => {
    const config = loadConfig({
      PLAN_OVERRIDES: '{"free":{"requestLimit":5},"developer":{"requestLimit":null}}',
      TRUST_PROXY: '10.0.0.0/8, ::1',
    });
    assert.deepEqual(config.planOverrides, {
      free: { requestLimit: 5 },
      developer: { requestLimit: null },
    });
    assert.deepEqual(config.trustProxy, ['10.0.0.0/8', '::1']);
  });
});

describe('seller settings', () => {
  it('default to an unregistered seller and read the SELLER_* variables', () => {
    assert.deepEqual(loadConfig({}).seller, {
      name: 'Operator legal name not set (SELLER_NAME)',
      address: [],
      country: null,
      vatNumber: null,
      iban: null,
      bic: null,
    });
    const config = loadConfig({
      SELLER_NAME: 'Salary Data Europe B.V.',
      SELLER_ADDRESS: 'Keizersgracht 1; 1015 CJ Amsterdam',
      SELLER_COUNTRY: 'nl',
      SELLER_VAT_NUMBER: 'NL 8123.4567.8B01',
      SELLER_IBAN: 'nl91 abna 0417 1643 00',
      SELLER_BIC: 'abnanl2a',
    });
    assert.deepEqual(config.seller, {
      name: 'Salary Data Europe B.V.',
      address: ['Keizersgracht 1', '1015 CJ Amsterdam'],
      country: 'NL',
      vatNumber: 'NL812345678B01',
      iban: 'NL91ABNA0417164300',
      bic: 'ABNANL2A',
    });
  });

  it('refuses a country outside the EU, a VAT number of the wrong form or without a country', () => {
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig(env);
        return [];
      } catch (error) {
        return (error as ConfigError).problems;
      }
    };
    assert.match(
      problems({ SELLER_COUNTRY: 'US' }).join(),
      /SELLER_COUNTRY must be the code of an EU member state/,
    );
    assert.match(
      problems({ SELLER_COUNTRY: 'DE', SELLER_VAT_NUMBER: 'DE1' }).join(),
      /SELLER_VAT_NUMBER is not of the form of a VAT number of Germany \(for example DE123456789\)/,
    );
    assert.match(
      problems({ SELLER_VAT_NUMBER: 'DE123456789' }).join(),
      /SELLER_VAT_NUMBER needs SELLER_COUNTRY/,
    );
  });

  const badBank = [
    [
      { SELLER_IBAN: 'NL92ABNA0417164300' },
      /SELLER_IBAN has wrong check digits \(ISO 13616, mod 97\)/,
    ],
    [
      { SELLER_IBAN: 'NL91ABNA04171643001' },
      /SELLER_IBAN must have 18 characters for NL \(got 19\)/,
    ],
    [{ SELLER_IBAN: 'XX91ABNA0417164300' }, /SELLER_IBAN must start with the code of a country/],
    [
      { SELLER_IBAN: 'BR1800360305000010009795493C1' },
      /SELLER_IBAN must be an IBAN of a SEPA country/,
    ],
    [{ SELLER_BIC: 'ABNANL2A' }, /SELLER_BIC needs SELLER_IBAN/],
    [
      { SELLER_IBAN: 'NL91ABNA0417164300', SELLER_BIC: 'ABN' },
      /SELLER_BIC must be a BIC of 8 or 11/,
    ],
  ] as const;
  for (const [env, problem] of badBank)
    it(`refuses ${JSON.stringify(env)} at start`, () => {
      try {
        loadConfig(env);
        assert.fail('should throw');
      } catch (error) {
        assert.ok(error instanceof ConfigError, String(error));
        assert.match(error.problems.join('\n'), problem);
      }
    });
});

describe('baseUrlOf', () => {
  it('is PUBLIC_BASE_URL without its trailing slash, else the listening address as a URL', () => {
    assert.equal(
      baseUrlOf(loadConfig({ PUBLIC_BASE_URL: 'https://api.example.eu/' }, '/srv')),
      'https://api.example.eu',
    );
    assert.equal(baseUrlOf(loadConfig({ PORT: '4720' }, '/srv')), 'http://127.0.0.1:4720');
    // An IPv6 listening address needs brackets, or the issuer is no URL (http://:::4720).
    const v6 = baseUrlOf(loadConfig({ HOST: '::', PORT: '4720' }, '/srv'));
    assert.equal(v6, 'http://[::]:4720');
    assert.equal(new URL(v6).port, '4720');
  });
});
