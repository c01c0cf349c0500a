import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { FILE_PART_BYTES } from '../../src/exports/files-repo.js';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { answer, startReceiver, type Receiver } from '../helpers/receiver.js';

/**
 * A streamed export's file (rows read a chunk at a time, written by the render worker as they
 * come, stored in parts) is byte for byte what the bulk endpoint answers for the same query.
 */
describe('a streamed export is the bulk endpoint’s file, byte for byte', () => {
  let t: TestApp;
  let key: string;
  let receiver: Receiver;

  before(async () => {
    t = await buildTestApp({ env: { OUTBOUND_ALLOW_PRIVATE_TARGETS: 'true' } });
    key = (await accountOnPlan(t, 'enterprise')).apiKey!;
    receiver = await startReceiver();
    receiver.respondWith(answer(200));
  });
  after(async () => {
    await receiver.close();
    await t.close();
  });

  /**
   * A zip (xlsx) with every entry's modification time and date set to zero, in the central
   * directory and in the local headers: exceljs stamps entries with the time of writing.
   */
  function withoutZipTimes(zip: Buffer): Buffer {
    const out = Buffer.from(zip);
    const end = out.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
    assert.ok(end > 0, 'a zip');
    const count = out.readUInt16LE(end + 10);
    let at = out.readUInt32LE(end + 16);
    for (let i = 0; i < count; i++) {
      assert.equal(out.readUInt32LE(at), 0x02014b50, 'a central directory entry');
      out.fill(0, at + 12, at + 16);
      out.fill(0, out.readUInt32LE(at + 42) + 10, out.readUInt32LE(at + 42) + 14);
      at += 46 + out.readUInt16LE(at + 28) + out.readUInt16LE(at + 30) + out.readUInt16LE(at + 32);
    }
    return out;
  }

  const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

  async function exported(format: string, fields?: string) {
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/exports',
      headers: { authorization: `Bearer ${key}` },
      payload: {
        name: `archive ${format}`,
        schedule: '0 6 1 1 *',
        query: { kind: 'archive', years: 'all', ...(fields ? { fields } : {}) },
        format,
        destination: { type: 'webhook', url: receiver.url },
      },
    });
    assert.equal(created.statusCode, 201, created.body);
    const queued = await t.app.inject({
      method: 'POST',
      url: `/api/v1/exports/${created.json<{ id: string }>().id}/run`,
      headers: { authorization: `Bearer ${key}` },
    });
    const runId = queued.json<{ id: string }>().id;
    await t.exportWorker.runOnce();
    const run = await t.app.inject({
      method: 'GET',
      url: `/api/v1/exports/runs/${runId}`,
      headers: { authorization: `Bearer ${key}` },
    });
    const r = run.json<{ status: string; error: string | null; bytes: number; sha256: string }>();
    assert.equal(r.status, 'succeeded', r.error ?? '');
    const event = receiver.received
      .map((x) => JSON.parse(x.body) as { data: { run_id: string; download_url: string } })
      .find((a) => a.data.run_id === runId)!;
    const u = new URL(event.data.download_url);
    const file = await t.app.inject({ method: 'GET', url: `${u.pathname}${u.search}` });
    assert.equal(file.statusCode, 200);
    return { run: r, bytes: file.rawPayload };
  }

  async function bulk(format: string, fields?: string): Promise<Buffer> {
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/v1/bulk/archive?year=all&format=${format}${fields ? `&fields=${fields}` : ''}`,
      headers: { authorization: `Bearer ${key}` },
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.rawPayload;
  }

  for (const format of ['csv', 'json', 'xml', 'parquet', 'xlsx']) {
    it(`the full archive as ${format}`, async () => {
      const { run, bytes } = await exported(format);
      const expected = await bulk(format);
      assert.equal(run.bytes, bytes.length);
      assert.equal(run.sha256, sha(bytes));
      assert.equal(bytes.length, expected.length);
      const same = (b: Buffer) => (format === 'xlsx' ? withoutZipTimes(b) : b);
      assert.ok(same(bytes).equals(same(expected)), `${format}: the bulk endpoint's bytes`);
    });
  }

  it('with extra fields, kept in several parts', async () => {
    const fields = 'yoy_median_pct';
    const { bytes } = await exported('csv', fields);
    assert.ok(bytes.length > 3 * FILE_PART_BYTES, `${bytes.length} bytes: several parts`);
    assert.ok(bytes.equals(await bulk('csv', fields)));
  });
});
