import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

export interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

const OWN = ['dashboard.css', 'dashboard.js'];
/** uPlot, copied from its npm package into dist/dashboard/assets by scripts/copy-assets.js. */
const VENDOR = ['uPlot.iife.min.js', 'uPlot.min.css'];

function typeOf(name: string): string {
  return name.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8';
}

/** Reads the dashboard's static files once, at start; served from memory. */
export function loadAssets(): Map<string, Asset> {
  const dir = fileURLToPath(new URL('./assets/', import.meta.url));
  const require = createRequire(import.meta.url);
  const assets = new Map<string, Asset>();
  for (const name of [...OWN, ...VENDOR]) {
    const copied = `${dir}${name}`;
    // Running from src/ (tests, `npm run dev`): uPlot straight from its package.
    const path =
      existsSync(copied) || OWN.includes(name) ? copied : require.resolve(`uplot/dist/${name}`);
    const body = readFileSync(path);
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
    assets.set(name, { body, type: typeOf(name), etag });
  }
  return assets;
}
