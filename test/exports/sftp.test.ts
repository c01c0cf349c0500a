import { parse } from 'csv-parse/sync';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { parquetReadObjects } from 'hyparquet';
import { RUN_RETRY_DELAYS_MS } from '../../src/exports/index.js';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { SSHD, startSshd, type TestSshd } from '../helpers/sshd.js';

const skip = existsSync(SSHD) ? false : `${SSHD} is not installed (.ci/run installs it)`;

describe('exports delivered by SFTP to a real OpenSSH server', { skip }, () => {
  let t: TestApp;
  let sshd: TestSshd;
  let key: string;
  const endpoints: string[] = [];

  before(async () => {
    t = await buildTestApp({ env: { OUTBOUND_ALLOW_PRIVATE_TARGETS: 'true' } });
    sshd = await startSshd();
    key = (await accountOnPlan(t, 'enterprise')).apiKey!;
    const other = (await accountOnPlan(t, 'enterprise')).apiKey!;
    for (const k of [key, other]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/webhooks',
        headers: { authorization: `Bearer ${k}` },
        payload: { url: 'http://127.0.0.1:9/hook', events: ['export.completed', 'export.failed'] },
      });
      assert.equal(res.statusCode, 201, res.body);
      endpoints.push(res.json<{ id: string }>().id);
    }
  });
  after(async () => {
    await sshd?.stop();
    await t?.close();
  });

  const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
    t.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${key}` },
      ...(payload ? { payload } : {}),
    });

  function destination(over: Record<string, unknown> = {}) {
    return {
      type: 'sftp',
      host: '127.0.0.1',
      port: sshd.port,
      username: sshd.username,
      private_key: sshd.privateKey,
      host_key_sha256: sshd.hostKeySha256,
      path: sshd.uploads,
      ...over,
    };
  }

  async function createExport(body: Record<string, unknown>): Promise<string> {
    const res = await call('POST', '/api/v1/exports', {
      name: 'salaries',
      schedule: '0 6 * * 1',
      timezone: 'Europe/Berlin',
      query: { kind: 'archive', years: 'all' },
      format: 'csv',
      destination: destination(),
      ...body,
    });
    assert.equal(res.statusCode, 201, res.body);
    const json = res.json<{ id: string; destination: Record<string, unknown> }>();
    assert.equal(json.destination.private_key, undefined, 'the credential is never returned');
    return json.id;
  }

  async function runNow(id: string) {
    const queued = await call('POST', `/api/v1/exports/${id}/run`);
    assert.equal(queued.statusCode, 202, queued.body);
    await t.exportWorker.runOnce();
    const run = await call('GET', `/api/v1/exports/runs/${queued.json<{ id: string }>().id}`);
    return run.json<{
      id: string;
      status: string;
      rows: number;
      bytes: number;
      sha256: string;
      file_name: string;
      attempts: number;
      error: string | null;
    }>();
  }

  it('delivers the archive as CSV, read back complete by an independent parser', async () => {
    const id = await createExport({ name: 'archive csv' });
    const run = await runNow(id);
    assert.equal(run.status, 'succeeded', run.error ?? '');
    assert.match(run.file_name, /archive-csv-2026-11-22\.csv$/);
    const bytes = readFileSync(run.file_name);
    assert.equal(bytes.length, run.bytes);
    assert.equal(createHash('sha256').update(bytes).digest('hex'), run.sha256);
    const records = parse<Record<string, string>>(bytes, { columns: true });
    assert.equal(records.length, run.rows);
    assert.ok(run.rows > 1000);
    assert.ok(records.every((r) => r.median !== '' && r.country !== ''));
    assert.deepEqual(
      readdirSync(sshd.uploads).filter((f) => f.endsWith('.part')),
      [],
    );
  });

  it('delivers Parquet (gzip-compressed too), read back by hyparquet', async () => {
    const id = await createExport({ name: 'archive', format: 'parquet' });
    const run = await runNow(id);
    assert.equal(run.status, 'succeeded', run.error ?? '');
    const bytes = readFileSync(run.file_name);
    const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    const rows = await parquetReadObjects({ file: buffer });
    assert.equal(rows.length, run.rows);

    const gz = await createExport({
      name: 'current',
      format: 'csv',
      compression: 'gzip',
      query: { kind: 'country', country: 'DE', years: 'current' },
    });
    const zipped = await runNow(gz);
    assert.equal(zipped.status, 'succeeded', zipped.error ?? '');
    assert.match(zipped.file_name, /\.csv\.gz$/);
    const text = gunzipSync(readFileSync(zipped.file_name));
    const records = parse<Record<string, string>>(text, { columns: true });
    assert.equal(records.length, zipped.rows);
    assert.ok(records.every((r) => r.country === 'DE'));
  });

  it('never overwrites a delivered file: a second run the same day gets the run id', async () => {
    const id = await createExport({
      name: 'twice',
      query: { kind: 'job', job: 'software-engineer', years: 'current' },
    });
    const first = await runNow(id);
    const second = await runNow(id);
    assert.equal(second.status, 'succeeded', second.error ?? '');
    assert.notEqual(first.file_name, second.file_name);
    assert.ok(second.file_name.includes(second.id));
    assert.ok(existsSync(first.file_name));
  });

  it('refuses a server whose host key does not match, and sends nothing', async () => {
    const before = readdirSync(sshd.uploads).length;
    const wrong = `SHA256:${createHash('sha256').update('another key').digest('base64').replace(/=+$/, '')}`;
    const id = await createExport({
      name: 'wrong host',
      destination: destination({ host_key_sha256: wrong }),
    });
    const run = await runNow(id);
    assert.equal(run.status, 'failed');
    assert.match(run.error ?? '', /host key SHA256:.* does not match host_key_sha256/);
    assert.equal(readdirSync(sshd.uploads).length, before);
    const probe = await call('POST', '/api/v1/exports/test-destination', {
      destination: destination({ host_key_sha256: wrong }),
    });
    assert.equal(probe.json<{ ok: boolean }>().ok, false);
  });

  it('fails cleanly on wrong credentials and retries with backoff', async () => {
    const id = await createExport({
      name: 'wrong key',
      destination: destination({ private_key: sshd.otherKey }),
    });
    const run = await runNow(id);
    assert.equal(run.status, 'queued');
    assert.equal(run.attempts, 1);
    assert.equal(run.error, 'the server refused the username and credential');
    for (const delay of RUN_RETRY_DELAYS_MS) {
      t.clock.advance(delay);
      await t.exportWorker.runOnce();
    }
    const last = (await call('GET', `/api/v1/exports/runs/${run.id}`)).json<{
      status: string;
      attempts: number;
    }>();
    assert.equal(last.status, 'failed');
    assert.equal(last.attempts, RUN_RETRY_DELAYS_MS.length + 1);
    // The account is told by e-mail once, when the run gives up (not at each retry).
    const notices = await t.db.query<{ data: { export_id: string; reason: string } }>(
      `SELECT data FROM notices WHERE kind = 'export.failed' AND data->>'export_id' = $1`,
      [id],
    );
    assert.equal(notices.length, 1);
    assert.equal(notices[0]!.data.reason, 'the server refused the username and credential');
  });

  it('test-destination writes and removes a small file', async () => {
    const before = readdirSync(sshd.uploads).sort();
    const res = await call('POST', '/api/v1/exports/test-destination', {
      destination: destination(),
    });
    assert.deepEqual(res.json(), { ok: true, error: null });
    assert.deepEqual(readdirSync(sshd.uploads).sort(), before);
  });

  it('sshd killed mid-transfer, then restarted: the retry delivers a complete file, no .part left', async () => {
    const id = await createExport({ name: 'interrupted', format: 'csv' });
    const queued = await call('POST', `/api/v1/exports/${id}/run`);
    const runId = queued.json<{ id: string }>().id;
    // Kill the server as soon as the partial file has data in it.
    const watcher = setInterval(() => {
      const part = readdirSync(sshd.uploads).find(
        (f) => f.startsWith('interrupted') && f.endsWith('.part'),
      );
      if (part !== undefined && readFileSync(join(sshd.uploads, part)).length > 0) {
        clearInterval(watcher);
        sshd.kill();
      }
    }, 1);
    await t.exportWorker.runOnce();
    clearInterval(watcher);
    const failed = (await call('GET', `/api/v1/exports/runs/${runId}`)).json<{
      status: string;
      error: string;
    }>();
    assert.equal(failed.status, 'queued', JSON.stringify(failed));
    assert.ok(
      readdirSync(sshd.uploads).some((f) => f.startsWith('interrupted') && f.endsWith('.part')),
    );
    await sshd.start();
    t.clock.advance(RUN_RETRY_DELAYS_MS[0]);
    await t.exportWorker.runOnce();
    const done = (await call('GET', `/api/v1/exports/runs/${runId}`)).json<{
      status: string;
      rows: number;
      file_name: string;
      error: string | null;
    }>();
    assert.equal(done.status, 'succeeded', done.error ?? '');
    const records = parse<unknown>(readFileSync(done.file_name), { columns: true });
    assert.equal(records.length, done.rows);
    assert.deepEqual(
      readdirSync(sshd.uploads).filter((f) => f.endsWith('.part')),
      [],
    );
  });

  it('announces each run’s end to the account’s own webhook endpoints subscribed to it', async () => {
    const events = async (endpoint: string) =>
      t.db.query<{
        type: string;
        data: { run_id: string; sha256: string | null; error: string | null };
      }>(
        `SELECT e.type, e.data FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
         WHERE d.endpoint_id = $1`,
        [endpoint],
      );
    const mine = await events(endpoints[0]!);
    const completed = mine.filter((e) => e.type === 'export.completed');
    const failed = mine.filter((e) => e.type === 'export.failed');
    assert.ok(completed.length >= 5, JSON.stringify(mine.map((e) => e.type)));
    assert.ok(completed.every((e) => /^[0-9a-f]{64}$/.test(e.data.sha256 ?? '')));
    assert.equal(failed.length, 2); // wrong host key, wrong credentials after its retries
    assert.ok(failed.every((e) => e.data.error !== null));
    assert.deepEqual(await events(endpoints[1]!), [], 'another account hears nothing');
  });
});
