// The libraries that take long to load (hundreds of milliseconds of CPU each) are loaded by the
// first request that needs one, not when the app is built: every process that builds the app
// (each test file, each CLI command that serves) would pay for them. Scalar's plugin is the
// exception: it registers the reference's routes, so it is loaded with the app.
import assert from 'node:assert/strict';
import { createRequire, register } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { MessageChannel } from 'node:worker_threads';
import type { TestApp } from '../helpers/app.js';

/** What the app loads at its first request that needs it, never before. */
const HEAVY = [
  '@modelcontextprotocol/sdk',
  'exceljs',
  'pdf-lib',
  '@pdf-lib/fontkit',
  'apache-arrow',
  'parquet-wasm',
];

// The ES modules loaded from here on, reported by a loader hook (in its own thread), and the
// CommonJS ones, in require's cache.
const urls: string[] = [];
const { port1, port2 } = new MessageChannel();
port1.on('message', (url: string) => urls.push(url));
port1.unref();
const HOOKS = `let port;
export function initialize(data) { port = data.port; }
export async function load(url, context, next) { port.postMessage(url); return next(url, context); }`;
register(`data:text/javascript,${encodeURIComponent(HOOKS)}`, {
  data: { port: port2 },
  transferList: [port2],
});
const cache = createRequire(import.meta.url).cache;

let sentinels = 0;
/** The heavy packages loaded so far. */
async function heavyLoaded(): Promise<string[]> {
  // The hook's reports arrive in order: the last one is this module's.
  const sentinel = `data:text/javascript,export default ${++sentinels}`;
  await import(sentinel);
  for (let i = 0; i < 1000 && !urls.includes(sentinel); i++)
    await new Promise((r) => setTimeout(r, 5));
  assert.ok(urls.includes(sentinel), 'the loader hook reports');
  const paths = [...urls, ...Object.keys(cache)];
  return HEAVY.filter((name) => paths.some((path) => path.includes(`/node_modules/${name}/`)));
}

describe('heavy libraries', () => {
  // Imported after the hook is registered, so that it sees every module of the app.
  let t: TestApp;
  before(async () => {
    const { buildTestApp } = await import('../helpers/app.js');
    t = await buildTestApp();
  });
  after(() => t.close());

  it('none is loaded with the app', async () => {
    assert.ok(
      urls.some((url) => url.includes('/node_modules/fastify/')),
      'the hook saw the app load',
    );
    assert.deepEqual(await heavyLoaded(), []);
  });
});
