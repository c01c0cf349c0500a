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
    // The first 401 from the address in each second in full, the others only counted (at the
    // latest on shutdown): every refusal is accounted for, and most by a count.
    const full = lines.filter((l) => l.msg === 'request' && l.status === 401).length;
    const repeats = lines.filter((l) => l.msg === 'requests refused (repeats)');
    const counted = repeats.reduce((sum, l) => sum + (l.count as number), 0);
    assert.equal(full + counted, 30);
    assert.ok(full <= repeats.length + 1 && counted > full, `${full} lines, ${counted} counted`);
    assert.ok(repeats.every((l) => l.status === 401 && l.ip === '127.0.0.1'));
    assert.ok(lines.some((l) => l.msg === 'shutdown complete'));
  });
});
