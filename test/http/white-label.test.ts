import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { basename } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { inflateRawSync } from 'node:zlib';
import ExcelJS from 'exceljs';
import { createLicenseService, type LicenseInput } from '../../src/licensing/index.js';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { startReceiver } from '../helpers/receiver.js';
import { SSHD, startSshd, type TestSshd } from '../helpers/sshd.js';

/** Every way this service's name is spelled: the host, the product, the package. */
const OUR_NAME = /salary-api|salary api|European Salary Data/i;
const FILE_FORMATS = ['csv', 'xlsx', 'xml', 'parquet'] as const;

/**
 * The entries of a zip (an .xlsx), read through its central directory (the streaming writer
 * puts sizes only there): name and inflated content of each.
 */
function unzip(zip: Buffer): { name: string; text: string }[] {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  assert.ok(end >= 0, 'a zip has an end of central directory');
  const entries: { name: string; text: string }[] = [];
  let at = zip.readUInt32LE(end + 16);
  for (let i = 0; i < zip.readUInt16LE(end + 10); i++) {
    const method = zip.readUInt16LE(at + 10);
    const size = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const skip = nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    const local = zip.readUInt32LE(at + 42);
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const data = zip.subarray(start, start + size);
    entries.push({ name, text: (method === 8 ? inflateRawSync(data) : data).toString('utf8') });
    at += 46 + skip;
  }
  return entries;
}

/** The text of a delivered file: an .xlsx is a zip, every entry of it unpacked. */
function textOf(bytes: Buffer): string {
  if (bytes.subarray(0, 2).toString('latin1') !== 'PK') return bytes.toString('latin1');
  const entries = unzip(bytes);
  assert.ok(
    entries.some((e) => e.name === 'docProps/core.xml'),
    'the workbook was unpacked',
  );
  return entries.map((e) => `${e.name}\n${e.text}`).join('\n');
}

const LICENSE: LicenseInput = {
  licensee: 'Acme Pay Insights',
  attribution: 'Data: Acme Pay Insights, modelled from official statistics.',
  whiteLabel: true,
  permittedUse: 'Resale to HR software customers within the EU.',
  termEnd: '2027-12-31',
};

describe('white-label data licensing', () => {
  let t: TestApp;
  let wl: Awaited<ReturnType<typeof accountOnPlan>>;
  let plain: Awaited<ReturnType<typeof accountOnPlan>>;
  let licenses: ReturnType<typeof createLicenseService>;
  before(async () => {
    t = await buildTestApp({ env: { OUTBOUND_ALLOW_PRIVATE_TARGETS: 'true' } });
    wl = await accountOnPlan(t, 'enterprise');
    plain = await accountOnPlan(t, 'enterprise');
    licenses = createLicenseService({ db: t.db, clock: t.clock, registry: t.licenses });
  });
  after(() => t.close());

  const get = (url: string, token: string, headers: Record<string, string> = {}) =>
    t.app.inject({ url, headers: { ...headers, authorization: `Bearer ${token}` } });
  /** Headers and body of a response, as one text to search. */
  const delivered = async (res: Awaited<ReturnType<typeof get>>): Promise<string> =>
    `${JSON.stringify(res.headers)}\n${textOf(res.rawPayload)}`;

  it('GET /api/v1/account/license: 404 until recorded, then the licence (audited)', async () => {
    assert.equal((await get('/api/v1/account/license', wl.apiKey!)).statusCode, 404);
    await licenses.record(wl.accountId, LICENSE);
    const res = await get('/api/v1/account/license', wl.apiKey!);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(
      { ...res.json<object>(), recorded_at: undefined, updated_at: undefined },
      {
        licensee: LICENSE.licensee,
        attribution: LICENSE.attribution,
        white_label: true,
        permitted_use: LICENSE.permittedUse,
        term_end: '2027-12-31',
        active: true,
        recorded_at: undefined,
        updated_at: undefined,
      },
    );
    assert.equal((await get('/api/v1/account/license', plain.apiKey!)).statusCode, 404);
    const audit = await t.db.query<{ actor: string }>(
      "SELECT actor FROM audit_log WHERE account_id = $1 AND action = 'licenses.record'",
      [wl.accountId],
    );
    assert.deepEqual(
      audit.map((a) => a.actor),
      ['operator'],
    );
  });

  const paths = [
    '/api/v1/salary?country=DE&job=chef',
    // Large: written by a render worker, then served from the per-release cache.
    '/api/v1/bulk/countries?job=chef&year=all',
  ];

  it('never names this service in any format, small or large; the attribution appears instead', async () => {
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/custom-endpoints',
      headers: { authorization: `Bearer ${wl.session}` },
      payload: { slug: 'pay', query: { countries: ['DE', 'FR'] }, parameters: ['format'] },
    });
    for (const path of [...paths, '/api/v1/custom/pay?']) {
      const sep = path.includes('?') ? '&' : '?';
      const json = await get(path, wl.apiKey!);
      assert.equal(json.statusCode, 200, `${path}: ${json.body.slice(0, 300)}`);
      assert.doesNotMatch(await delivered(json), OUR_NAME, path);
      assert.equal(json.json().meta.attribution, LICENSE.attribution, path);
      assert.equal(json.json().meta.modelled, true, 'the data-honesty facts stay');
      assert.match(json.json().meta.source, /Modelled from published statistics/);
      for (const format of FILE_FORMATS) {
        const res = await get(`${path}${sep}format=${format}`, wl.apiKey!);
        assert.equal(res.statusCode, 200, `${path} ${format}`);
        const text = await delivered(res);
        assert.doesNotMatch(text, OUR_NAME, `${path} as ${format}`);
        if (format === 'xml') assert.ok(text.includes(`attribution="${LICENSE.attribution}"`));
        if (format === 'csv') assert.match(text, /projected/, 'the projected column stays');
        if (format === 'xlsx') {
          const book = new ExcelJS.Workbook();
          await book.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
          assert.equal(book.creator, LICENSE.licensee);
        }
      }
    }
  });

  it('the scan finds the name in an ordinary account’s files (it can fail)', async () => {
    const xml = await get(`${paths[0]}&format=xml`, plain.apiKey!);
    assert.match(await delivered(xml), OUR_NAME);
    const xlsx = await get(`${paths[1]}&format=xlsx`, plain.apiKey!);
    assert.match(await delivered(xlsx), OUR_NAME);
    assert.equal(
      (await get(paths[0]!, plain.apiKey!)).json().meta.attribution,
      undefined,
      'no attribution for accounts without a white-label licence',
    );
  });

  it('a white-label lookup leaves the cached standard body aside (attribution in meta)', async () => {
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.app.server.address() as AddressInfo;
    const res = await fetch(`http://127.0.0.1:${port}${paths[0]}`, {
      headers: { authorization: `Bearer ${wl.apiKey}` },
    });
    assert.equal(res.status, 200);
    const body = await res.text();
    assert.doesNotMatch(body, OUR_NAME);
    assert.equal(
      (JSON.parse(body) as { meta: { attribution: string } }).meta.attribution,
      LICENSE.attribution,
    );
  });

  it('webhook deliveries name the licensee in User-Agent, never this service', async () => {
    const receiver = await startReceiver();
    try {
      const created = await t.app.inject({
        method: 'POST',
        url: '/api/v1/webhooks',
        headers: { authorization: `Bearer ${wl.apiKey}` },
        payload: { url: receiver.url, events: ['export.completed'] },
      });
      assert.equal(created.statusCode, 201, created.body);
      const test = await t.app.inject({
        method: 'POST',
        url: `/api/v1/webhooks/${created.json<{ id: string }>().id}/test`,
        headers: { authorization: `Bearer ${wl.apiKey}` },
      });
      assert.equal(test.statusCode, 200, test.body);
      const got = receiver.received[0]!;
      assert.equal(got.headers['user-agent'], 'Acme-Pay-Insights-webhooks/1');
      assert.doesNotMatch(`${JSON.stringify(got.headers)}\n${got.body}`, OUR_NAME);
    } finally {
      await receiver.close();
    }
  });

  it('a host name mapped to the account titles the docs page’s OpenAPI document with the licensee', async () => {
    await licenses.mapHost('Data.Acme-Pay.example:443', wl.accountId, wl.accountId);
    for (const path of ['/api/v1/openapi.json', '/docs/json']) {
      const mapped = await t.app.inject({ url: path, headers: { host: 'data.acme-pay.example' } });
      assert.equal(mapped.statusCode, 200, path);
      const doc = mapped.json<{ info: { title: string }; servers: { url: string }[] }>();
      assert.equal(doc.info.title, 'Acme Pay Insights data API');
      assert.deepEqual(doc.servers, [{ url: 'https://data.acme-pay.example' }]);
      assert.doesNotMatch(JSON.stringify(doc.info), OUR_NAME);
      const ours = await t.app.inject({ url: path, headers: { host: 'api.example.org' } });
      assert.match(ours.json<{ info: { title: string } }>().info.title, /European Salary Data/);
    }
    const page = await t.app.inject({ url: '/docs/', headers: { host: 'data.acme-pay.example' } });
    assert.equal(page.statusCode, 200);
    assert.doesNotMatch(page.body, OUR_NAME);
    await licenses.mapHost('data.acme-pay.example', null, wl.accountId);
    const unmapped = await t.app.inject({
      url: '/api/v1/openapi.json',
      headers: { host: 'data.acme-pay.example' },
    });
    assert.match(unmapped.json<{ info: { title: string } }>().info.title, /European Salary Data/);
  });

  const skip = existsSync(SSHD) ? false : `${SSHD} is not installed (.ci/run installs it)`;
  it(
    'a scheduled bulk export (every format) and its webhook event never name this service',
    { skip },
    async () => {
      const sshd: TestSshd = await startSshd();
      const receiver = await startReceiver();
      try {
        const hook = await t.app.inject({
          method: 'POST',
          url: '/api/v1/webhooks',
          headers: { authorization: `Bearer ${wl.apiKey}` },
          payload: { url: receiver.url, events: ['export.completed'] },
        });
        assert.equal(hook.statusCode, 201, hook.body);
        for (const format of ['json', ...FILE_FORMATS]) {
          const res = await t.app.inject({
            method: 'POST',
            url: '/api/v1/exports',
            headers: { authorization: `Bearer ${wl.apiKey}` },
            payload: {
              name: `jobs ${format}`,
              schedule: '0 6 * * 1',
              timezone: 'Europe/Berlin',
              query: { kind: 'country', country: 'DE', years: 'last 2' },
              format,
              destination: {
                type: 'sftp',
                host: '127.0.0.1',
                port: sshd.port,
                username: sshd.username,
                private_key: sshd.privateKey,
                host_key_sha256: sshd.hostKeySha256,
                path: sshd.uploads,
              },
            },
          });
          assert.equal(res.statusCode, 201, res.body);
          const queued = await t.app.inject({
            method: 'POST',
            url: `/api/v1/exports/${res.json<{ id: string }>().id}/run`,
            headers: { authorization: `Bearer ${wl.apiKey}` },
          });
          assert.equal(queued.statusCode, 202, queued.body);
          await t.exportWorker.runOnce();
          const run = (
            await t.app.inject({
              url: `/api/v1/exports/runs/${queued.json<{ id: string }>().id}`,
              headers: { authorization: `Bearer ${wl.apiKey}` },
            })
          ).json<{ status: string; file_name: string; error: string | null }>();
          assert.equal(run.status, 'succeeded', run.error ?? '');
          assert.doesNotMatch(basename(run.file_name), OUR_NAME);
          const text = textOf(readFileSync(run.file_name));
          assert.doesNotMatch(text, OUR_NAME, `export as ${format}`);
          if (format === 'json') assert.ok(text.includes(LICENSE.attribution));
        }
        t.clock.advance(1000);
        await t.worker.runOnce();
        assert.ok(receiver.received.length >= 1, 'the export events were delivered');
        for (const got of receiver.received) {
          assert.equal(got.headers['user-agent'], 'Acme-Pay-Insights-webhooks/1');
          // The customer's upload directory is the test's temporary one: not ours to judge.
          const text = `${JSON.stringify(got.headers)}\n${got.body}`.replaceAll(sshd.uploads, '');
          assert.doesNotMatch(text, OUR_NAME);
        }
      } finally {
        await receiver.close();
        await sshd.stop();
      }
    },
  );
});
