import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from './config.js';

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({}, '/srv/app');
    assert.equal(config.port, 3000);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.dataDir, '/srv/app/data');
    assert.equal(config.databaseUrl, undefined);
    assert.deepEqual(config.trustProxy, []);
    assert.equal(config.webhookAllowPrivateTargets, false);
    assert.ok(Object.isFrozen(config));
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
