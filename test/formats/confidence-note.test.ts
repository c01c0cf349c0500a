// The confidence note is the evidence sentence behind the label (the measured typical error),
// not the label again, in JSON and in the tabular formats alike; read over real HTTP.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { listenHttp, type HttpCall } from '../helpers/http.js';

const LOOKUP = '/api/v1/salary?country=AT&job=software-engineer&year=2026';

describe('confidence_note in every format', () => {
  let t: TestApp;
  let call: HttpCall;
  let key: string;
  before(async () => {
    t = await buildTestApp();
    ({ call } = await listenHttp(t));
    key = (await accountOnPlan(t, 'business')).apiKey!;
  });
  after(() => t.close());

  const assertEvidence = (row: Record<string, unknown>, format: string) => {
    assert.match(String(row.confidence_note), /typical error \d+ %/, format);
    assert.notEqual(row.confidence_note, row.confidence, format);
  };

  it('JSON: each record says the typical error its label stands for', async () => {
    const res = await call('GET', LOOKUP, { token: key });
    assert.equal(res.status, 200, res.body);
    const rows = res.json().data as Record<string, unknown>[];
    assert.ok(rows.length > 0);
    for (const row of rows) assertEvidence(row, 'json');
  });

  it('CSV: the same sentence in its column', async () => {
    const res = await call('GET', `${LOOKUP}&format=csv`, { token: key });
    assert.equal(res.status, 200, res.body);
    const rows = parse<Record<string, unknown>>(res.body, { columns: true });
    assert.ok(rows.length > 0);
    for (const row of rows) assertEvidence(row, 'csv');
  });
});
