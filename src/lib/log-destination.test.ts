import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { BatchedWriter } from './log-destination.js';

const dir = mkdtempSync(join(tmpdir(), 'log-destination-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function lines(path: string): string[] {
  return readFileSync(path, 'utf8').split('\n').slice(0, -1);
}

describe('BatchedWriter', () => {
  it('writes every line once, in order, in batches that do not wait for each other', async () => {
    const path = join(dir, 'order.log');
    const fd = openSync(path, 'w');
    const writer = new BatchedWriter(fd, 1000);
    for (let i = 0; i < 5000; i++) writer.write(`line ${i} ${'x'.repeat(i % 50)}\n`);
    writer.flush();
    for (let i = 0; i < 200 && lines(path).length < 5000; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    closeSync(fd);
    const written = lines(path);
    assert.equal(written.length, 5000);
    written.forEach((line, i) => assert.ok(line.startsWith(`line ${i} `), line));
  });

  it('keeps multi-byte characters and lines longer than a buffer whole and in order', () => {
    const path = join(dir, 'wide.log');
    const fd = openSync(path, 'w');
    const writer = new BatchedWriter(fd, 100_000_000); // no write before flushSync
    const expected: string[] = [];
    for (let i = 0; i < 3000; i++) {
      const line =
        i % 1000 === 7
          ? `long ${i} ${'ü€😀'.repeat(30_000)}` // about 270 KB: more than one buffer
          : `line ${i} café ${'€'.repeat(i % 40)} 😀`;
      expected.push(line);
      writer.write(`${line}\n`);
    }
    writer.flushSync();
    closeSync(fd);
    assert.deepEqual(lines(path), expected);
  });

  it('keeps lines below the batch size until flushed', async () => {
    const path = join(dir, 'small.log');
    const fd = openSync(path, 'w');
    const writer = new BatchedWriter(fd, 1000);
    writer.write('a\n');
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(readFileSync(path, 'utf8'), '');
    writer.flushSync();
    assert.equal(readFileSync(path, 'utf8'), 'a\n');
    closeSync(fd);
  });

  it('drops lines beyond the pending bound and says how many once it writes again', () => {
    const path = join(dir, 'dropped.log');
    const fd = openSync(path, 'w');
    // Never writes on its own (batch size above the bound): the reader "stalls".
    const writer = new BatchedWriter(fd, 10_000, 100);
    for (let i = 0; i < 10; i++) writer.write(`${String(i).padStart(29, '0')}\n`);
    writer.flushSync();
    closeSync(fd);
    const written = lines(path);
    assert.equal(written.length, 5, written.join('\n'));
    assert.equal(written[3], '00000000000000000000000000003');
    const note = JSON.parse(written[4]!) as { dropped: number; msg: string };
    assert.equal(note.dropped, 6);
    assert.match(note.msg, /dropped/);
  });

  it('loses nothing when the process exits right after logging (bufferedStdout)', () => {
    const script = `
      import pino from 'pino';
      import { bufferedStdout } from ${JSON.stringify(new URL('./log-destination.ts', import.meta.url).href)};
      const log = pino({ base: null }, bufferedStdout());
      for (let i = 0; i < 20000; i++) log.info({ i }, 'request');
      process.exit(0);
    `;
    const child = spawnSync(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '--eval', script],
      {
        cwd: process.cwd(),
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    assert.equal(child.status, 0, child.stderr);
    const out = child.stdout.split('\n').slice(0, -1);
    assert.equal(out.length, 20000);
    out.forEach((line, i) => assert.equal((JSON.parse(line) as { i: number }).i, i));
  });
});
