import { parse } from 'csv-parse/sync';
import { createHash } from 'node:crypto';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { parquetReadObjects } from 'hyparquet';
import { RUN_MAX_ATTEMPTS, RUN_RETRY_DELAYS_MS } from '../../src/exports/index.js';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { answer, startReceiver, type Receiver, type Received } from '../helpers/receiver.js';
import { verifyAt } from '../helpers/webhooks.js';

const DAY = 86_400_000;
const METRICS_TOKEN = 'metrics-token-0123456789';

interface Announcement {
  type: string;
  timestamp: string;
  data: {
    export_id: string;
    run_id: string;
    format: string;
    rows: number | null;
    bytes: number | null;
    sha256: string | null;
    file_name: string | null;
    download_url?: string;
    expires_at?: string;
    error: string | null;
  };
}

describe('exports delivered to a webhook destination', () => {
  let t: TestApp;
  let key: string;
  let receiver: Receiver;

  before(async () => {
    t = await buildTestApp({
      env: {
        OUTBOUND_ALLOW_PRIVATE_TARGETS: 'true',
        EXPORT_HEARTBEAT_SECONDS: '0.1',
        METRICS_TOKEN: METRICS_TOKEN,
      },
    });
    key = (await accountOnPlan(t, 'enterprise')).apiKey!;
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
    await t.close();
  });

  const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
    t.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${key}` },
      ...(payload ? { payload } : {}),
    });

  async function createExport(body: Record<string, unknown> = {}) {
    const res = await call('POST', '/api/v1/exports', {
      name: 'salaries',
      // Once a year: only runs started by hand happen while the test moves the clock.
      schedule: '0 6 1 1 *',
      timezone: 'Europe/Berlin',
      query: { kind: 'archive', years: 'all' },
      format: 'csv',
      destination: { type: 'webhook', url: receiver.url },
      ...body,
    });
    assert.equal(res.statusCode, 201, res.body);
    return res.json<{ id: string; secret: string; destination: Record<string, unknown> }>();
  }

  async function runNow(id: string) {
    const queued = await call('POST', `/api/v1/exports/${id}/run`);
    assert.equal(queued.statusCode, 202, queued.body);
    await t.exportWorker.runOnce();
    return (await call('GET', `/api/v1/exports/runs/${queued.json<{ id: string }>().id}`)).json<{
      id: string;
      status: string;
      rows: number;
      bytes: number;
      sha256: string;
      attempts: number;
      error: string | null;
    }>();
  }

  /** Every announcement of `runId` that arrived, each verified with `secret` as a receiver would. */
  function announcements(secret: string, runId: string, type = 'export.completed') {
    return receiver.received
      .map((r): [Received, Announcement] => [r, JSON.parse(r.body) as Announcement])
      .filter(([, a]) => a.type === type && a.data.run_id === runId)
      .map(([req, body]) => {
        verifyAt(secret, req, t.clock.now());
        return { id: req.headers['webhook-id'], body };
      });
  }
  /** The one announcement of `runId`. */
  function announcement(secret: string, runId: string, type = 'export.completed'): Announcement {
    const found = announcements(secret, runId, type);
    assert.equal(found.length, 1, `one ${type} for ${runId}`);
    return found[0]!.body;
  }

  /**
   * The `export.failed` messages of `runId` that arrived, oldest first; with `fresh`, the newest
   * is verified as a receiver would when it arrived (it came since the clock last moved).
   */
  function failedNotices(secret: string, runId: string, fresh = false) {
    const found = receiver.received
      .map((r): [Received, Announcement] => [r, JSON.parse(r.body) as Announcement])
      .filter(([, a]) => a.type === 'export.failed' && a.data.run_id === runId);
    const newest = found.at(-1);
    if (fresh && newest !== undefined) verifyAt(secret, newest[0], t.clock.now());
    return found.map(([req, body]) => ({ id: req.headers['webhook-id'], body }));
  }

  const download = (url: string) => {
    const u = new URL(url);
    return t.app.inject({ method: 'GET', url: `${u.pathname}${u.search}` });
  };

  it('shows the whsec_ secret once, and never again', async () => {
    const created = await createExport({ name: 'secret shown once' });
    assert.match(created.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.deepEqual(created.destination, { type: 'webhook', url: receiver.url });
    const got = await call('GET', `/api/v1/exports/${created.id}`);
    assert.equal(got.json().secret, undefined);
    assert.equal(got.body.includes(created.secret.slice(6)), false);
    const listed = await call('GET', '/api/v1/exports');
    assert.equal(listed.body.includes(created.secret.slice(6)), false);
  });

  it('announces a CSV run, signed with the export secret; the link downloads the file without credentials', async () => {
    const created = await createExport({ name: 'archive csv' });
    const run = await runNow(created.id);
    assert.equal(run.status, 'succeeded', run.error ?? '');
    const event = announcement(created.secret, run.id);
    assert.equal(event.data.export_id, created.id);
    assert.equal(event.data.format, 'csv');
    assert.equal(event.data.rows, run.rows);
    assert.equal(event.data.bytes, run.bytes);
    assert.equal(event.data.sha256, run.sha256);
    assert.equal(Date.parse(event.data.expires_at!), t.clock.now() + 7 * DAY);

    const file = await download(event.data.download_url!);
    assert.equal(file.statusCode, 200, file.body);
    assert.match(file.headers['content-type'] as string, /^text\/csv/);
    assert.match(file.headers['content-disposition'] as string, /archive-csv-2026-11-22\.csv/);
    assert.equal(file.rawPayload.length, run.bytes);
    assert.equal(createHash('sha256').update(file.rawPayload).digest('hex'), run.sha256);
    const records = parse<Record<string, string>>(file.rawPayload, { columns: true });
    assert.equal(records.length, run.rows);
    assert.ok(run.rows > 1000);
  });

  it("also tells the account's webhook endpoints that subscribe, with the same download link", async () => {
    const endpoint = await startReceiver();
    try {
      const res = await call('POST', '/api/v1/webhooks', {
        url: endpoint.url,
        events: ['export.completed'],
      });
      assert.equal(res.statusCode, 201, res.body);
      const hook = res.json<{ id: string; secret: string }>();
      const created = await createExport({
        name: 'to endpoints too',
        query: { kind: 'country', country: 'NL', years: 'current' },
      });
      const run = await runNow(created.id);
      assert.equal(run.status, 'succeeded', run.error ?? '');
      await t.worker.runOnce();
      const toEndpoint = endpoint.received
        .map((r) => ({ r, body: JSON.parse(r.body) as Announcement }))
        .filter(({ body }) => body.data.run_id === run.id);
      assert.equal(toEndpoint.length, 1);
      verifyAt(hook.secret, toEndpoint[0]!.r, t.clock.now());
      const direct = announcement(created.secret, run.id);
      assert.equal(toEndpoint[0]!.body.data.download_url, direct.data.download_url);
      assert.equal((await download(direct.data.download_url!)).statusCode, 200);
      await call('DELETE', `/api/v1/webhooks/${hook.id}`);
    } finally {
      await endpoint.close();
    }
  });

  it('Parquet, gzip-compressed, read back by hyparquet', async () => {
    const created = await createExport({ name: 'parquet', format: 'parquet', compression: 'gzip' });
    const run = await runNow(created.id);
    assert.equal(run.status, 'succeeded', run.error ?? '');
    const file = await download(announcement(created.secret, run.id).data.download_url!);
    assert.equal(file.statusCode, 200);
    assert.equal(file.headers['content-type'], 'application/gzip');
    const bytes = gunzipSync(file.rawPayload);
    const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    assert.equal((await parquetReadObjects({ file: buffer })).length, run.rows);
  });

  it('refuses an altered or expired link with 403, and the file is gone after 7 days', async () => {
    const created = await createExport({
      name: 'links',
      query: { kind: 'country', country: 'DE', years: 'current' },
    });
    const other = await createExport({
      name: 'other',
      query: { kind: 'country', country: 'FR', years: 'current' },
    });
    const run = await runNow(created.id);
    const otherRun = await runNow(other.id);
    const link = new URL(announcement(created.secret, run.id).data.download_url!);
    assert.equal((await download(link.href)).statusCode, 200);

    const expires = link.searchParams.get('expires')!;
    const signature = link.searchParams.get('signature')!;
    const flipped = (signature[0] === 'A' ? 'B' : 'A') + signature.slice(1);
    const altered = [
      `${link.pathname}?expires=${Number(expires) + 3600}&signature=${signature}`,
      `${link.pathname}?expires=${expires}&signature=${flipped}`,
      `${link.pathname}?expires=${expires}`,
      link.pathname,
      `${link.pathname.replace(run.id, otherRun.id)}?expires=${expires}&signature=${signature}`,
    ];
    for (const url of altered) {
      const res = await t.app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 403, url);
      assert.equal(res.json().code, 'DOWNLOAD_LINK_INVALID');
      assert.match(res.json().detail, /not valid/);
    }

    t.clock.advance(7 * DAY + 1000);
    const expired = await download(link.href);
    assert.equal(expired.statusCode, 403);
    assert.match(expired.json().detail, /expired/);
    await t.exportWorker.runOnce();
    const [row] = await t.db.query<{ n: number | string }>(
      'SELECT count(*) AS n FROM export_files WHERE run_id = $1',
      [run.id],
    );
    assert.equal(Number(row!.n), 0, 'purged after 7 days');
  });

  it('retries while the receiver fails, then succeeds once it accepts', async () => {
    const created = await createExport({
      name: 'retry',
      query: { kind: 'country', country: 'PL', years: 'current' },
    });
    receiver.respondWith(answer(503));
    const first = await runNow(created.id);
    assert.equal(first.status, 'queued');
    assert.match(first.error ?? '', /HTTP 5xx/);
    receiver.respondWith(answer(200));
    t.clock.advance(RUN_RETRY_DELAYS_MS[0]);
    await t.exportWorker.runOnce();
    const done = (await call('GET', `/api/v1/exports/runs/${first.id}`)).json();
    assert.equal(done.status, 'succeeded');
    assert.equal(done.attempts, 2);
    // The refused announcement and the accepted one: the same message id, for deduplication.
    const both = announcements(created.secret, first.id);
    assert.equal(both.length, 2);
    assert.equal(both[0]!.id, both[1]!.id);
    const file = await download(both[1]!.body.data.download_url!);
    assert.equal(createHash('sha256').update(file.rawPayload).digest('hex'), done.sha256);
  });

  it('gives up after the last attempt and sends a signed export.failed', async () => {
    const created = await createExport({
      name: 'gives up',
      query: { kind: 'country', country: 'SE', years: 'current' },
    });
    receiver.respondWith((req, _n, res) => {
      const type = (JSON.parse(req.body) as { type: string }).type;
      res.writeHead(type === 'export.failed' ? 200 : 500).end();
    });
    try {
      const first = await runNow(created.id);
      for (const delay of RUN_RETRY_DELAYS_MS) {
        t.clock.advance(delay);
        await t.exportWorker.runOnce();
      }
      const run = (await call('GET', `/api/v1/exports/runs/${first.id}`)).json();
      assert.equal(run.status, 'failed');
      assert.equal(run.attempts, RUN_MAX_ATTEMPTS);
      const failed = announcement(created.secret, first.id, 'export.failed');
      assert.match(failed.data.error ?? '', /did not accept/);
    } finally {
      receiver.respondWith(answer(200));
    }
  });

  it('renews the lease of a long run, so no other instance takes it over', async () => {
    const created = await createExport({
      name: 'slow receiver',
      query: { kind: 'country', country: 'CZ', years: 'current' },
    });
    let leaseLeft = Number.NaN;
    receiver.respondWith((_req, _n, res) => {
      // The receiver takes 31 minutes (of the test clock) to answer: past the 30-minute lease.
      t.clock.advance(31 * 60_000);
      setTimeout(() => {
        t.db
          .query<{ claimed_until: Date | string }>(
            "SELECT claimed_until FROM export_runs WHERE export_id = $1 AND status = 'running'",
            [created.id],
          )
          .then(([row]) => {
            leaseLeft = Date.parse(String(new Date(row!.claimed_until))) - t.clock.now();
            res.writeHead(200).end();
          })
          .catch(() => res.writeHead(500).end());
      }, 500);
    });
    try {
      const run = await runNow(created.id);
      assert.equal(run.status, 'succeeded', run.error ?? '');
      assert.ok(
        leaseLeft > 25 * 60_000,
        `lease left while the receiver took its time: ${leaseLeft} ms`,
      );
    } finally {
      receiver.respondWith(answer(200));
    }
  });

  it('counts and times the attempts in /metrics', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    assert.equal(res.statusCode, 200);
    const value = (labels: string) =>
      Number(
        new RegExp(`^salary_api_export_runs_total\\{${labels}\\} (\\d+)$`, 'm').exec(
          res.body,
        )?.[1] ?? 0,
      );
    // So far: seven runs succeeded (one after a retry); one gave up after four retries.
    assert.equal(value('result="succeeded",destination="webhook"'), 7, res.body);
    assert.equal(value('result="retry",destination="webhook"'), 5);
    assert.equal(value('result="failed",destination="webhook"'), 1);
    assert.match(res.body, /^salary_api_export_run_seconds_count\{destination="webhook"\} \d+$/m);
  });

  it('retries a refused export.failed with the runs’ backoff, then stops once it is accepted', async () => {
    const created = await createExport({
      name: 'failed notice retried',
      query: { kind: 'country', country: 'FI', years: 'current' },
    });
    let refusals = 0;
    receiver.respondWith((req, _n, res) => {
      const type = (JSON.parse(req.body) as { type: string }).type;
      // The completions always fail; the first two export.failed too, then it is accepted.
      const ok = type === 'export.failed' && ++refusals > 2;
      res.writeHead(ok ? 200 : 503).end();
    });
    try {
      const first = await runNow(created.id);
      for (const delay of RUN_RETRY_DELAYS_MS) {
        t.clock.advance(delay);
        await t.exportWorker.runOnce();
      }
      assert.equal((await call('GET', `/api/v1/exports/runs/${first.id}`)).json().status, 'failed');
      assert.equal(failedNotices(created.secret, first.id, true).length, 1);
      // Not before its delay (1 minute after the first refusal), then again 5 minutes later.
      t.clock.advance(RUN_RETRY_DELAYS_MS[0] - 1000);
      await t.exportWorker.runOnce();
      assert.equal(failedNotices(created.secret, first.id).length, 1);
      t.clock.advance(1000);
      await t.exportWorker.runOnce();
      assert.equal(failedNotices(created.secret, first.id, true).length, 2);
      t.clock.advance(RUN_RETRY_DELAYS_MS[1]);
      await t.exportWorker.runOnce();
      const sent = failedNotices(created.secret, first.id, true);
      assert.equal(sent.length, 3, 'accepted at the third attempt');
      assert.equal(new Set(sent.map((a) => a.id)).size, 1, 'one webhook-id on every attempt');
      assert.match(sent[2]!.body.data.error ?? '', /did not accept/);
      // Accepted: never sent again.
      t.clock.advance(RUN_RETRY_DELAYS_MS[3] * 2);
      await t.exportWorker.runOnce();
      assert.equal(failedNotices(created.secret, first.id).length, 3);
    } finally {
      receiver.respondWith(answer(200));
    }
  });

  it('gives up on export.failed after five attempts over about an hour', async () => {
    const created = await createExport({
      name: 'failed notice given up',
      query: { kind: 'country', country: 'DK', years: 'current' },
    });
    receiver.respondWith(answer(500));
    try {
      const first = await runNow(created.id);
      for (const delay of RUN_RETRY_DELAYS_MS) {
        t.clock.advance(delay);
        await t.exportWorker.runOnce();
      }
      for (const delay of [...RUN_RETRY_DELAYS_MS, DAY]) {
        t.clock.advance(delay);
        await t.exportWorker.runOnce();
      }
      assert.equal(failedNotices(created.secret, first.id).length, RUN_MAX_ATTEMPTS);
    } finally {
      receiver.respondWith(answer(200));
    }
  });

  it('tests a webhook destination with a signed ping', async () => {
    const res = await call('POST', '/api/v1/exports/test-destination', {
      destination: { type: 'webhook', url: receiver.url },
    });
    assert.equal(res.statusCode, 200, res.body);
    const { ok, secret } = res.json<{ ok: boolean; secret: string }>();
    assert.equal(ok, true);
    const ping = receiver.received.at(-1)!;
    assert.equal(JSON.parse(ping.body).type, 'export.test');
    verifyAt(secret, ping, t.clock.now());

    receiver.respondWith(answer(500));
    try {
      const failing = await call('POST', '/api/v1/exports/test-destination', {
        destination: { type: 'webhook', url: receiver.url },
      });
      assert.equal(failing.json().ok, false);
      assert.match(failing.json().error, /HTTP 5xx/);
    } finally {
      receiver.respondWith(answer(200));
    }
  });

  it('a new webhook destination by PATCH gets a new secret, which signs from then on', async () => {
    const created = await createExport({
      name: 'patched',
      query: { kind: 'country', country: 'DK', years: 'current' },
    });
    const patched = await call('PATCH', `/api/v1/exports/${created.id}`, {
      destination: { type: 'webhook', url: receiver.url },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    const secret = patched.json<{ secret: string }>().secret;
    assert.notEqual(secret, created.secret);
    const run = await runNow(created.id);
    announcement(secret, run.id);
  });

  it('resumes a download: one byte range (206), across stored parts, with If-Range; 416 past the end', async () => {
    const created = await createExport({ name: 'ranges' });
    const run = await runNow(created.id);
    assert.equal(run.status, 'succeeded', run.error ?? '');
    const [parts] = await t.db.query<{ n: number | string }>(
      'SELECT count(*) AS n FROM export_file_parts WHERE run_id = $1',
      [run.id],
    );
    assert.ok(Number(parts!.n) >= 3, `the file is stored in several parts (${parts!.n})`);
    const link = new URL(announcement(created.secret, run.id).data.download_url!);
    const get = (headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') =>
      t.app.inject({ method, url: `${link.pathname}${link.search}`, headers });

    const whole = await get();
    assert.equal(whole.statusCode, 200);
    assert.equal(whole.headers['content-length'], String(run.bytes));
    assert.equal(whole.headers['accept-ranges'], 'bytes');
    assert.equal(whole.headers.etag, `"${run.sha256}"`);
    const file = whole.rawPayload;
    assert.equal(file.length, run.bytes);

    const ranged = async (range: string, start: number, end: number) => {
      const res = await get({ range, 'if-range': `"${run.sha256}"` });
      assert.equal(res.statusCode, 206, `${range}: ${res.body.slice(0, 200)}`);
      assert.equal(res.headers['content-range'], `bytes ${start}-${end}/${run.bytes}`, range);
      assert.equal(res.headers['content-length'], String(end + 1 - start), range);
      assert.ok(res.rawPayload.equals(file.subarray(start, end + 1)), `${range}: the same bytes`);
      return res.rawPayload;
    };
    await ranged('bytes=0-99', 0, 99);
    // Across the boundaries of the stored parts (256 KiB or a little more each).
    const middle = Math.floor(run.bytes / 2);
    await ranged(
      `bytes=${middle - 300_000}-${middle + 300_000}`,
      middle - 300_000,
      middle + 300_000,
    );
    await ranged('bytes=-500', run.bytes - 500, run.bytes - 1);
    await ranged(`bytes=${run.bytes - 1}-${run.bytes + 1000}`, run.bytes - 1, run.bytes - 1);
    // An interrupted download finished from where it stopped gives the announced file.
    const head = file.subarray(0, middle + 7);
    const rest = await ranged(`bytes=${middle + 7}-`, middle + 7, run.bytes - 1);
    const resumed = Buffer.concat([head, rest]);
    assert.equal(createHash('sha256').update(resumed).digest('hex'), run.sha256);

    // A validator of another file, several ranges or another unit: the whole file.
    const wholeFile: Record<string, string>[] = [
      { range: 'bytes=0-99', 'if-range': '"another file"' },
      { range: 'bytes=0-9,20-29' },
      { range: 'lines=0-9' },
    ];
    for (const headers of wholeFile) {
      const res = await get(headers);
      assert.equal(res.statusCode, 200, JSON.stringify(headers));
      assert.equal(res.rawPayload.length, run.bytes);
    }

    const beyond = await get({ range: `bytes=${run.bytes}-` });
    assert.equal(beyond.statusCode, 416);
    assert.equal(beyond.headers['content-range'], `bytes */${run.bytes}`);
    assert.equal(beyond.json().code, 'RANGE_NOT_SATISFIABLE');
    assert.equal(beyond.headers['content-disposition'], undefined);

    // A value too long to be one range is malformed: the whole file, not a 400.
    const long = await get({
      range: `bytes=0-${'9'.repeat(300)}`,
      'if-range': `"${'a'.repeat(300)}"`,
    });
    assert.equal(long.statusCode, 200);
    assert.equal(long.rawPayload.length, run.bytes);

    // HEAD: the headers alone, without reading the file's parts.
    const partReads: string[] = [];
    const query = t.db.query.bind(t.db);
    t.db.query = (sql: string, params?: readonly unknown[]) => {
      if (sql.includes('export_file_parts')) partReads.push(sql);
      return query(sql, params as unknown[]);
    };
    try {
      for (const headers of [{}, { range: 'bytes=10-19' }] as Record<string, string>[]) {
        const res = await get(headers, 'HEAD');
        assert.equal(res.statusCode, 'range' in headers ? 206 : 200);
        assert.equal(res.headers['content-length'], 'range' in headers ? '10' : String(run.bytes));
        assert.equal(res.rawPayload.length, 0);
      }
      assert.deepEqual(partReads, [], 'HEAD reads no part');
      assert.equal((await get({ range: 'bytes=10-19' })).rawPayload.length, 10);
      assert.ok(partReads.length > 0, 'the reads are seen');
    } finally {
      t.db.query = query;
    }
  });

  it('breaks the transfer, rather than ending it short, when the file’s parts went missing', async () => {
    const created = await createExport({ name: 'parts missing' });
    const run = await runNow(created.id);
    assert.equal(run.status, 'succeeded', run.error ?? '');
    await t.db.query(
      `DELETE FROM export_file_parts WHERE run_id = $1
       AND seq = (SELECT max(seq) FROM export_file_parts WHERE run_id = $1)`,
      [run.id],
    );
    const link = new URL(announcement(created.secret, run.id).data.download_url!);
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.app.server.address() as { port: number };
    const res = await fetch(`http://127.0.0.1:${port}${link.pathname}${link.search}`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-length'), String(run.bytes));
    await assert.rejects(res.arrayBuffer(), 'the body fails instead of ending short');
  });

  it('a link works until the file’s expires_at to the millisecond, not a second less', async () => {
    t.clock.advance(500);
    const created = await createExport({
      name: 'expiry',
      query: { kind: 'country', country: 'AT', years: 'current' },
    });
    const run = await runNow(created.id);
    const event = announcement(created.secret, run.id);
    const expiresAt = Date.parse(event.data.expires_at!);
    assert.notEqual(expiresAt % 1000, 0, 'the test needs an expiry inside a second');
    t.clock.advance(expiresAt - 1 - t.clock.now());
    assert.equal((await download(event.data.download_url!)).statusCode, 200);
    t.clock.advance(1);
    const gone = await download(event.data.download_url!);
    assert.equal(gone.statusCode, 403);
  });
});

describe('webhook destinations and the outbound address guard', () => {
  let t: TestApp;
  let key: string;
  before(async () => {
    t = await buildTestApp();
    key = (await accountOnPlan(t, 'enterprise')).apiKey!;
  });
  after(async () => t.close());

  for (const url of [
    'http://127.0.0.1:8080/hook',
    'https://10.0.0.5/hook',
    'https://localhost/hook',
    'https://[::1]/hook',
    'http://example.com/hook',
    'ftp://example.com/hook',
  ]) {
    it(`refuses ${url}`, async () => {
      for (const path of ['/api/v1/exports', '/api/v1/exports/test-destination']) {
        const res = await t.app.inject({
          method: 'POST',
          url: path,
          headers: { authorization: `Bearer ${key}` },
          payload: {
            ...(path === '/api/v1/exports'
              ? {
                  name: 'x',
                  schedule: '0 6 * * 1',
                  query: { kind: 'archive', years: 'current' },
                  format: 'csv',
                }
              : {}),
            destination: { type: 'webhook', url },
          },
        });
        assert.equal(res.statusCode, 400, `${path}: ${res.body}`);
        assert.equal(res.json().invalid_params[0].name, 'destination.url');
      }
    });
  }

  // An SFTP host is refused at creation as its runs would refuse it (not a 201 then failed runs).
  for (const host of [
    '127.0.0.1',
    '127.1',
    '0177.0.0.1',
    '0x7f000001',
    '169.254.169.254',
    '10.0.0.1',
    'localhost',
    '[::1]',
    'db',
  ]) {
    it(`refuses an SFTP destination on ${host}`, async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/exports',
        headers: { authorization: `Bearer ${key}` },
        payload: {
          name: 'x',
          schedule: '0 6 * * 1',
          query: { kind: 'archive', years: 'current' },
          format: 'csv',
          destination: {
            type: 'sftp',
            host,
            username: 'u',
            password: 'p',
            host_key_sha256: `SHA256:${'A'.repeat(43)}`,
            path: '/in',
          },
        },
      });
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json().invalid_params[0].name, 'destination.host');
    });
  }
});
