import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FileCache, type CachedFile } from './file-cache.js';

const file = (size: number): CachedFile => ({
  body: Buffer.alloc(size),
  contentType: 'text/csv',
  filename: 'f.csv',
});

describe('FileCache', () => {
  it('writes a file once for requests that come while it is being written', async () => {
    const cache = new FileCache(1000);
    const release = {};
    let writes = 0;
    let finish!: (f: CachedFile) => void;
    const generate = () => {
      writes++;
      return new Promise<CachedFile>((resolve) => (finish = resolve));
    };
    const a = cache.getOrAdd(release, 'k', generate);
    const b = cache.getOrAdd(release, 'k', generate);
    assert.equal(cache.get(release, 'k'), a);
    finish(file(10));
    assert.equal(await a, await b);
    assert.equal(writes, 1);
    assert.equal(cache.bytes, 10);
  });

  it('forgets a failed write, so the next request writes again', async () => {
    const cache = new FileCache(1000);
    const release = {};
    await assert.rejects(cache.getOrAdd(release, 'k', () => Promise.reject(new Error('boom'))));
    assert.equal(cache.get(release, 'k'), undefined);
    assert.equal((await cache.getOrAdd(release, 'k', async () => file(5))).body.length, 5);
  });

  it('drops the least recently used files beyond its bytes', async () => {
    const cache = new FileCache(300);
    const release = {};
    for (const key of ['a', 'b', 'c']) await cache.getOrAdd(release, key, async () => file(100));
    assert.ok(cache.get(release, 'a'), 'a used again: now the most recent');
    await cache.getOrAdd(release, 'd', async () => file(100));
    assert.equal(cache.get(release, 'b'), undefined, 'b was the least recently used');
    for (const key of ['a', 'c', 'd']) assert.ok(cache.get(release, key), key);
    assert.equal(cache.bytes, 300);
  });

  it('keeps no file larger than half its bytes, and nothing of an earlier release', async () => {
    const cache = new FileCache(300);
    const old = {};
    await cache.getOrAdd(old, 'a', async () => file(100));
    assert.equal((await cache.getOrAdd(old, 'big', async () => file(200))).body.length, 200);
    assert.equal(cache.get(old, 'big'), undefined);
    const current = {};
    await cache.getOrAdd(current, 'a', async () => file(50));
    assert.equal(cache.get(old, 'a'), undefined);
    assert.equal(cache.bytes, 50);
  });
});
