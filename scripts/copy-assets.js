// Copies the SQL migrations next to the compiled code (tsc copies only .ts output).
import { cpSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';

cpSync('src/store/migrations', 'dist/store/migrations', { recursive: true });

// The dashboard's own CSS and script, and uPlot from its npm package (served by the app, no CDN).
const require = createRequire(import.meta.url);
mkdirSync('dist/dashboard/assets', { recursive: true });
cpSync('src/dashboard/assets', 'dist/dashboard/assets', { recursive: true });
for (const name of ['uPlot.iife.min.js', 'uPlot.min.css'])
  cpSync(require.resolve(`uplot/dist/${name}`), `dist/dashboard/assets/${name}`);
