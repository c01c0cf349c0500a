import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { loadConfig } from '../config/index.js';
import { listenText, startupLine } from './startup-line.js';

const embedded = {
  dataDir: './data',
  databaseUrl: undefined,
  redisUrl: undefined,
  publicBaseUrl: undefined,
};

describe('startupLine', () => {
  it('names the address, the embedded database folder, in-process limits and where to go', () => {
    const line = startupLine(embedded, 'http://127.0.0.1:3000');
    assert.equal(
      line,
      'salary API listening at http://127.0.0.1:3000; ' +
        `database: embedded PGlite in ${resolve('data', 'pglite')}; ` +
        'limits and caches: in-process (no REDIS_URL); ' +
        'open http://127.0.0.1:3000/ (start), http://127.0.0.1:3000/docs (API reference), ' +
        'http://127.0.0.1:3000/dashboard (account dashboard)',
    );
  });

  it('names PostgreSQL and Redis without their passwords or query strings', () => {
    const line = startupLine(
      {
        ...embedded,
        databaseUrl: 'postgres://api:s3cret@db.internal:5433/salary?sslmode=require&password=x',
        redisUrl: 'rediss://:r3dis@cache.internal:6380/2',
      },
      'http://10.0.0.5:3000',
    );
    assert.match(line, /database: PostgreSQL postgres:\/\/api@db\.internal:5433\/salary;/);
    assert.match(line, /limits and caches: Redis at rediss:\/\/cache\.internal:6380\/2;/);
    assert.doesNotMatch(line, /s3cret|r3dis|sslmode|password/);
  });

  it('links the public base URL when one is configured', () => {
    const line = startupLine(
      { ...embedded, publicBaseUrl: 'https://api.example.eu/' },
      'http://127.0.0.1:3000',
    );
    assert.match(line, /listening at http:\/\/127\.0\.0\.1:3000;/);
    assert.match(
      line,
      /open https:\/\/api\.example\.eu\/ \(start\), https:\/\/api\.example\.eu\/docs /,
    );
  });
});

describe('listenText', () => {
  it('says "listening" once however many addresses Fastify reports', () => {
    const text = listenText(embedded);
    const lines = ['http://127.0.0.1:3000', 'http://10.0.0.5:3000'].map(text);
    assert.match(lines[0]!, /^salary API listening at http:\/\/127\.0\.0\.1:3000;/);
    assert.equal(lines[1], 'also reachable at http://10.0.0.5:3000');
    assert.equal(lines.join('\n').match(/listening/g)?.length, 1);
  });
});

describe('startupLine seller warning', () => {
  it('warns while SELLER_* settings invoices need are missing, and is silent once all are set', () => {
    const bare = loadConfig({ DATA_DIR: './data' });
    assert.match(
      startupLine(bare, 'http://127.0.0.1:3000'),
      /\(account dashboard\); mail: written to this log, password-reset and verification links included \(no SMTP_URL; keep the log private\); WARNING: invoices lack SELLER_NAME, SELLER_ADDRESS, SELLER_COUNTRY, SELLER_VAT_NUMBER, SELLER_IBAN \(see README set-up; `salary-api doctor` checks them\)$/,
    );
    const full = loadConfig({
      DATA_DIR: './data',
      SELLER_NAME: 'Loonwijzer BV',
      SELLER_ADDRESS: 'Keizersgracht 1; 1015 CJ Amsterdam',
      SELLER_COUNTRY: 'NL',
      SELLER_VAT_NUMBER: 'NL 8123.4567.8B01',
      SELLER_IBAN: 'NL91ABNA0417164300',
    });
    assert.doesNotMatch(startupLine(full, 'http://127.0.0.1:3000'), /WARNING/);
  });

  it('says mail goes to the log without SMTP_URL, and not with it', () => {
    assert.match(
      startupLine(loadConfig({ DATA_DIR: './data' }), 'http://127.0.0.1:3000'),
      /mail: written to this log/,
    );
    const smtp = loadConfig({ DATA_DIR: './data', SMTP_URL: 'smtp://127.0.0.1:2525' });
    assert.doesNotMatch(startupLine(smtp, 'http://127.0.0.1:3000'), /mail:/);
  });
});
