import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { CONFIGURATION_DOC, documentedRows } from './environment-doc.js';
import { Environment, environmentRows, readEnvironment } from './environment.js';
import { ConfigError, loadConfig } from './config.js';

const names = Object.keys(Environment.properties);

describe('the environment schema', () => {
  it('is the table of docs/configuration.md, row for row (npm run docs:configuration)', () => {
    const documented = documentedRows(
      readFileSync(new URL(`../../${CONFIGURATION_DOC}`, import.meta.url), 'utf8'),
    );
    assert.deepEqual(documented, environmentRows());
  });

  it('gives every variable its default when the environment is empty', () => {
    const problems: string[] = [];
    const read = readEnvironment({}, problems);
    assert.deepEqual(problems, []);
    for (const name of names) {
      const schema = Environment.properties[name as keyof typeof Environment.properties];
      assert.equal(read[name as keyof typeof read], schema.default, name);
    }
    assert.equal(loadConfig({}).port, 3000);
  });

  it('reports a value outside every integer and boolean variable, naming the variable and what is allowed', () => {
    const env: Record<string, string> = {};
    const typed = names.filter((name) => {
      const type = (Environment.properties as Record<string, { type?: string }>)[name]!.type;
      return type === 'integer' || type === 'boolean';
    });
    for (const name of typed) env[name] = '-1x';
    const problems: string[] = [];
    readEnvironment(env, problems);
    assert.equal(problems.length, typed.length);
    for (const [i, name] of typed.entries()) {
      assert.match(
        problems[i]!,
        new RegExp(
          `^${name} must be (a whole number from \\d+ to \\d+|true or false) \\(got "-1x"\\)$`,
        ),
      );
    }
  });

  it('converts, trims and bounds values; an empty value is unset', () => {
    const config = loadConfig({
      PORT: ' 4720 ',
      ACCESS_LOG: 'FALSE',
      DPOP_NONCE: 'Token',
      USAGE_FLUSH_SECONDS: '7',
      HOST: '',
    });
    assert.equal(config.port, 4720);
    assert.equal(config.accessLog, false);
    assert.equal(config.dpopNonce, 'token');
    assert.equal(config.usageFlushMs, 7000);
    assert.equal(config.host, '127.0.0.1');
    assert.throws(
      () => loadConfig({ LOG_LEVEL: 'loud', SMTP_URL: 'http://mail', MAIL_FROM: 'nobody' }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.deepEqual(error.problems, [
          'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "loud")',
          'SMTP_URL must be a URL starting with smtp: or smtps://',
          'MAIL_FROM must be an e-mail address, optionally "Name <address>" (got "nobody")',
        ]);
        return true;
      },
    );
  });

  it('is the only reader of the environment in the product code', () => {
    // Settings reach the code through Config, so a variable read anywhere else would be
    // undocumented. The exceptions: loadConfig's default argument and the SLA probe command's
    // key (PROBE_API_KEY, docs/sla.md: a command's input, kept out of the process list).
    const allowed = ['config/config.ts', 'main/cli-sla.ts'];
    const root = new URL('../', import.meta.url);
    const readers = readdirSync(root, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
      .filter((file) => readFileSync(new URL(file, root), 'utf8').includes('process.env'))
      .sort();
    assert.deepEqual(readers, allowed.sort());
  });
});
