// The export files an account keeps are bounded by EXPORT_STORAGE_CAP_BYTES (2 GiB), checked at
// its byte edge: what the account keeps may reach the cap exactly, never one byte more, and a
// single file larger than the cap is refused before any of it is stored.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { exportFileWriter } from '../../src/exports/files-repo.js';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

const GIB = 1024 ** 3;
const CAP = 2 * GIB;

describe('the export files an account keeps: at most 2 GiB, to the byte', () => {
  let t: TestApp;
  let receiver: Receiver;

  before(async () => {
    t = await buildTestApp({ env: { OUTBOUND_ALLOW_PRIVATE_TARGETS: 'true' } });
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
    await t.close();
  });

  /** A new Enterprise account with one webhook-destination export, and a way to run it. */
  async function exporter() {
    const key = (await accountOnPlan(t, 'enterprise')).apiKey!;
    const call = (method: 'GET' | 'POST', url: string, payload?: object) =>
      t.app.inject({
        method,
        url,
        headers: { authorization: `Bearer ${key}` },
        ...(payload ? { payload } : {}),
      });
    const created = await call('POST', '/api/v1/exports', {
      name: 'cap',
      schedule: '0 6 1 1 *',
      query: { kind: 'country', country: 'DE', years: 'current' },
      format: 'csv',
      destination: { type: 'webhook', url: receiver.url },
    });
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json<{ id: string }>().id;
    return {
      async run(): Promise<{ id: string; bytes: number }> {
        const queued = await call('POST', `/api/v1/exports/${id}/run`);
        assert.equal(queued.statusCode, 202, queued.body);
        await t.exportWorker.runOnce();
        const run = (await call('GET', `/api/v1/exports/runs/${queued.json().id}`)).json();
        assert.equal(run.status, 'succeeded', run.error ?? '');
        return run;
      },
    };
  }

  /** Whether a run's file is kept: its row and its stored parts. */
  async function kept(runId: string): Promise<{ file: boolean; parts: boolean }> {
    const [row] = await t.db.query<{ files: string | number; parts: string | number }>(
      `SELECT (SELECT count(*) FROM export_files WHERE run_id = $1) AS files,
              (SELECT count(*) FROM export_file_parts WHERE run_id = $1) AS parts`,
      [runId],
    );
    return { file: Number(row!.files) === 1, parts: Number(row!.parts) > 0 };
  }

  for (const [beyond, older] of [
    [0, { file: true, parts: true }],
    [1, { file: false, parts: false }],
  ] as const) {
    it(`a new file that brings the account to 2 GiB${beyond === 0 ? ' exactly keeps the older one' : ` + ${beyond} byte drops the older one`}`, async () => {
      const e = await exporter();
      const first = await e.run();
      // The next run writes the same file again; the account is made to hold exactly what
      // leaves room for it (+ `beyond`). Only recorded sizes count, so no 2 GiB is written.
      await t.db.query('UPDATE export_files SET bytes = $2 WHERE run_id = $1', [
        first.id,
        CAP - first.bytes + beyond,
      ]);
      const second = await e.run();
      assert.equal(second.bytes, first.bytes, 'the same file again');
      assert.deepEqual(await kept(first.id), older);
      assert.deepEqual(await kept(second.id), { file: true, parts: true });
    });
  }

  it('refuses a single file of 2 GiB + 1 byte before storing any of it', async () => {
    const run = await (await exporter()).run();
    const writer = exportFileWriter(t.db, run.id, 99);
    writer.on('error', () => undefined);
    // Never filled: only its length is read, so no 2 GiB is held in memory.
    const chunk = Buffer.allocUnsafe(CAP + 1);
    const error = await new Promise<Error | null | undefined>((resolve) =>
      writer.write(chunk, resolve),
    );
    assert.match(String(error), /larger than the 2 GiB of export files an account may keep/);
    const [row] = await t.db.query<{ n: string | number }>(
      'SELECT count(*) AS n FROM export_file_parts WHERE run_id = $1 AND attempt = 99',
      [run.id],
    );
    assert.equal(Number(row!.n), 0);
  });

  it('writes a file of exactly the cap and refuses one byte more (a cap of 1000 bytes)', async () => {
    const run = await (await exporter()).run();
    const write = async (attempt: number, sizes: number[]) => {
      const writer = exportFileWriter(t.db, run.id, attempt, 1000);
      writer.on('error', () => undefined);
      for (const size of sizes) {
        const error = await new Promise<Error | null | undefined>((resolve) =>
          writer.write(Buffer.alloc(size, 0x61), resolve),
        );
        if (error) return error;
      }
      await new Promise<void>((resolve, reject) =>
        writer.end((error?: Error | null) => (error ? reject(error) : resolve())),
      );
      const [row] = await t.db.query<{ bytes: string | number | null }>(
        'SELECT sum(octet_length(content)) AS bytes FROM export_file_parts WHERE run_id = $1 AND attempt = $2',
        [run.id, attempt],
      );
      return Number(row!.bytes);
    };
    assert.equal(await write(100, [600, 400]), 1000);
    assert.match(String(await write(101, [600, 401])), /larger than the/);
  });
});
