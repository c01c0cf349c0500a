// The public status page in a real browser (Debian chromium through playwright-core): the
// 90 daily bars render with their measured colours, an open incident shows with its update, and
// axe finds no serious accessibility problem.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import {
  browserAvailable,
  launchBrowser,
  screenshot,
  seriousAxeViolations,
} from '../helpers/browser.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';

const MIN = 60_000;

describe('status page in a browser', () => {
  const skip = !browserAvailable() && process.env.CI !== 'true' && 'no chromium on this machine';
  let t: TestApp;
  let browser: Browser;
  let base: string;

  before(async () => {
    if (skip !== false) return;
    t = await buildTestApp({
      now: '2026-11-20T00:00:00Z',
      env: { SLA_HEARTBEAT_SECONDS: '0', BILLING_INTERVAL_SECONDS: '86400' },
    });
    // Alive every interval of the 20th, except half an hour: a day with a red bar.
    for (
      let at = Date.parse('2026-11-20T00:00:00Z');
      at < Date.parse('2026-11-21T00:00:00Z');
      at += 5 * MIN
    ) {
      if (at >= Date.parse('2026-11-20T10:00:00Z') && at < Date.parse('2026-11-20T10:30:00Z'))
        continue;
      t.clock.set(at);
      await t.heartbeat.beat();
    }
    for (
      let at = Date.parse('2026-11-21T00:00:00Z');
      at < Date.parse('2026-11-21T12:00:00Z');
      at += 5 * MIN
    ) {
      t.clock.set(at);
      await t.heartbeat.beat();
    }
    const incident = await t.sla.status.openIncident({
      title: 'Exports delayed',
      component: 'exports',
      status: 'investigating',
    });
    await t.sla.status.updateIncident(incident.id, 'identified', 'A stuck SFTP host; retrying');
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it(
    "renders 90 bars, the outage day in red, and the open incident, in the site's layout",
    { skip },
    async () => {
      const page = await browser.newPage();
      const res = await page.goto(`${base}/status`);
      assert.equal(res?.status(), 200);
      const bars = page.locator('li.bar');
      assert.equal(await bars.count(), 90);
      const box = await bars.last().boundingBox();
      assert.ok(box !== null && box.width > 0 && box.height > 0, 'bars have a size');
      const colours = await bars.evaluateAll((els) =>
        els
          .slice(-2)
          .map((e) => [
            e.getAttribute('title'),
            (
              globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }
            ).getComputedStyle(e).backgroundColor,
          ]),
      );
      // 20 November: 6 of 288 intervals down → 97.916 %, red; 21 November so far: all up, green.
      assert.deepEqual(colours, [
        ['2026-11-20: 97.916 % (30 min down)', 'rgb(197, 34, 31)'],
        ['2026-11-21: 100 % (0 min down)', 'rgb(46, 158, 80)'],
      ]);
      assert.equal(await page.locator('.incident.open h3').textContent(), 'Exports delayed');
      assert.match(
        (await page.locator('.incident.open').textContent()) ?? '',
        /identified: A stuck SFTP host; retrying/,
      );
      assert.match(
        await page.locator('[role=status]').innerText(),
        /^Degraded · updated 2026-11-21 \d\d:\d\d UTC$/,
      );
      // The site's own page: its header and navigation, Status marked, the SLA linked on the site.
      assert.equal(await page.locator('header.top a.brand').count(), 1);
      assert.equal(await page.locator('nav a[aria-current=page]').innerText(), 'Status');
      assert.equal(
        await page.locator('main a', { hasText: 'the SLA' }).getAttribute('href'),
        '/docs/guides/sla',
      );
      assert.deepEqual(await seriousAxeViolations(page), []);
      await screenshot(page, 'status-page');
      await page.close();
    },
  );
});
