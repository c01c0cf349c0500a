import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { templateDir } from '../helpers/db.js';
import { startInstance } from '../helpers/instances.js';

const DE = '/api/v1/salary?country=DE&job=software-engineer&level=senior';

describe('salary-api serve: the access log (buffered stdout)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'salary-api-access-log-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('writes every line by the end of a graceful shutdown; repeated refusals as one count', async () => {
    cpSync(await templateDir(), join(dataDir, 'pglite'), { recursive: true });
    const server = await startInstance({ DATA_DIR: dataDir, ACCESS_LOG: 'true' });
    const unknown = { authorization: `Bearer sk_live_${'x'.repeat(43)}` };
    for (let i = 0; i < 30; i++) {
      assert.equal((await fetch(`${server.url}${DE}`)).status, 200);
      assert.equal((await fetch(`${server.url}${DE}`, { headers: unknown })).status, 401);
    }
    assert.equal(await server.stop(), 0, server.log());
    const lines = server
      .log()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const served = lines.filter((l) => l.msg === 'request' && l.status === 200);
    assert.equal(served.length, 30);
    // The first 401 from the address in full; the other 29 counted (at the latest on shutdown).
    assert.equal(lines.filter((l) => l.msg === 'request' && l.status === 401).length, 1);
    const repeats = lines.filter((l) => l.msg === 'requests refused (repeats)');
    assert.equal(
      repeats.reduce((sum, l) => sum + (l.count as number), 0),
      29,
    );
    assert.ok(repeats.every((l) => l.status === 401 && l.ip === '127.0.0.1'));
    assert.ok(lines.some((l) => l.msg === 'shutdown complete'));
  });
});
