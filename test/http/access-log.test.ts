import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import { AccessLog, type AccessLine } from '../../src/http/access-log.js';

/** A pino logger writing its lines into `lines`, as the server's does (base bindings, info). */
function collectingLogger(level = 'info'): { logger: pino.Logger; lines: string[] } {
  const lines: string[] = [];
  const logger = pino(
    { level, base: { service: 'salary-api' } },
    { write: (line: string) => void lines.push(line) },
  );
  return { logger, lines };
}

const LINE: AccessLine = {
  requestId: 'req_107ff045c17e000002',
  method: 'GET',
  url: '/api/v1/salary?country=DE&job=software-engineer&level=senior',
  status: 200,
  ms: 1.23456,
  ip: '127.0.0.1',
  accountId: 'acc_0123456789',
};

/** What pino itself writes for the same fields: the format operators already parse. */
function pinoLine(line: AccessLine): string {
  const { logger, lines } = collectingLogger();
  logger.info(
    {
      request_id: line.requestId,
      method: line.method,
      url: line.url,
      status: line.status,
      ms: line.ms === null ? undefined : Math.round(line.ms * 100) / 100,
      ip: line.ip,
      account: line.accountId ?? undefined,
    },
    'request',
  );
  return lines[0]!;
}

/** A line without its time, which differs between two calls. */
function withoutTime(line: string): string {
  return line.replace(/"time":\d+,/, '');
}

describe('access log lines formatted by hand', () => {
  it('writes, byte for byte apart from the time, the line pino would write', () => {
    const { logger, lines } = collectingLogger();
    const log = new AccessLog(logger);
    log.write(LINE);
    log.write({ ...LINE, accountId: null, status: 404 });
    log.stop();
    assert.equal(lines.length, 2);
    assert.equal(withoutTime(lines[0]!), withoutTime(pinoLine(LINE)));
    assert.equal(
      withoutTime(lines[1]!),
      withoutTime(pinoLine({ ...LINE, accountId: null, status: 404 })),
    );
    const time = (JSON.parse(lines[0]!) as { time: number }).time;
    assert.ok(Math.abs(time - Date.now()) < 5_000, `time ${time}`);
  });

  it('escapes what a client can put in a URL: quotes, backslashes, control and non-ASCII characters', () => {
    const { logger, lines } = collectingLogger();
    const log = new AccessLog(logger);
    const url = '/api/v1/salary?country="DE"\\&job=\u0001ingénieur\u2028</script>';
    log.write({ ...LINE, url, ip: '::ffff:127.0.0.1' });
    log.stop();
    const parsed = JSON.parse(lines[0]!) as Record<string, unknown>;
    assert.equal(parsed.url, url);
    assert.equal(parsed.ip, '::ffff:127.0.0.1');
    assert.equal(
      withoutTime(lines[0]!),
      withoutTime(pinoLine({ ...LINE, url, ip: '::ffff:127.0.0.1' })),
    );
  });

  it('writes nothing when the log level leaves out info lines', () => {
    const { logger, lines } = collectingLogger('warn');
    const log = new AccessLog(logger);
    log.write(LINE);
    log.stop();
    assert.deepEqual(lines, []);
  });

  it('falls back to info calls for a logger that is not pino', () => {
    const calls: { obj: object; msg: string | undefined }[] = [];
    const info = (obj: object, msg?: string) => void calls.push({ obj, msg });
    const log = new AccessLog({ info, warn: info, error: info, debug: info });
    log.write(LINE);
    log.stop();
    assert.equal(calls.length, 1);
    assert.equal(calls[0]!.msg, 'request');
    assert.equal((calls[0]!.obj as { account: string }).account, LINE.accountId);
  });
});

describe('secrets in the URL', () => {
  it('writes a mailed link’s token and an access token as redacted, and every other URL as sent', () => {
    const { logger, lines } = collectingLogger();
    const log = new AccessLog(logger);
    const urls = [
      '/dashboard/reset-password?token=tok_mTWH0123.abcdef',
      '/dashboard/verify-email?lang=en&token=tok_x.y&next=%2Fdashboard',
      '/mcp?access_token=at_secret',
      LINE.url!,
      '/api/v1/salary?country=DE&tokens=2',
    ];
    for (const url of urls) log.write({ ...LINE, url });
    log.stop();
    const logged = lines.map((l) => (JSON.parse(l) as { url: string }).url);
    assert.deepEqual(logged, [
      '/dashboard/reset-password?token=redacted',
      '/dashboard/verify-email?lang=en&token=redacted&next=%2Fdashboard',
      '/mcp?access_token=redacted',
      LINE.url,
      '/api/v1/salary?country=DE&tokens=2',
    ]);
    assert.doesNotMatch(lines.join(''), /tok_|at_secret/);
  });
});
