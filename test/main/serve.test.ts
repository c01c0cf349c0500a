import assert from 'node:assert/strict';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { spawnCli } from '../helpers/process.js';

describe('salary-api serve (a real process on the embedded database)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'salary-api-serve-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('loads the bundled release on first start, serves, and shuts down gracefully on SIGTERM', async () => {
    const child = spawnCli(['serve'], { DATA_DIR: dataDir, PORT: '0', ACCESS_LOG: 'false' });
    let log = '';
    child.stderr?.on('data', (d: Buffer) => (log += d.toString()));
    const address = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no listening line in 60 s:\n${log}`)),
        60_000,
      );
      child.stdout?.on('data', (d: Buffer) => {
        log += d.toString();
        const match = /salary API listening at (http:\/\/[^;\s"]+)/.exec(log);
        if (match?.[1] !== undefined) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
    });
    // Built, the first start unpacks the prepared image (the bundled release in it); from source,
    // it loads the bundled release into a new database.
    assert.match(
      log,
      /bundled data release loaded|embedded database unpacked from the prepared image/,
    );
    assert.equal(log.match(/listening/g)?.length, 1, `one start-up line:\n${log}`);
    assert.match(log, /database: embedded PGlite in .*; limits and caches: in-process/);
    assert.ok(existsSync(join(dataDir, 'salary-api.lock')));

    const ready = await fetch(`${address}/ready`);
    assert.equal(ready.status, 200);
    const salary = await fetch(`${address}/api/v1/salary?country=IT&job=chef&level=mid`);
    assert.equal(salary.status, 200);
    assert.equal(((await salary.json()) as { data: unknown[] }).data.length, 1);

    // Requests in flight when SIGTERM arrives are answered, not cut off. Requests whose
    // connection was not yet accepted (or sat idle) fail to connect: never acknowledged.
    const inflight = Array.from({ length: 40 }, () =>
      fetch(`${address}/api/v1/salary?country=IT&job=chef`).then(
        (r) => r.status,
        (e: Error) => `failed: ${e.message}`,
      ),
    );
    await new Promise((r) => setTimeout(r, 5));
    child.kill('SIGTERM');
    const [code] = (await once(child, 'exit')) as [number | null];
    const statuses = await Promise.all(inflight);
    assert.equal(code, 0, log);
    assert.match(log, /shutdown complete/);
    assert.ok(
      statuses.every((s) => s === 200 || s === 503 || String(s).startsWith('failed: fetch failed')),
      String(statuses),
    );
    assert.ok(
      statuses.filter((s) => s === 200).length > 0,
      'some requests were in flight and answered',
    );
    assert.equal(existsSync(join(dataDir, 'salary-api.lock')), false, 'the lock is released');
  });
});
