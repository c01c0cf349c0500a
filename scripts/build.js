// Builds dist/: the compiled code (tsc, incremental: only changed sources are compiled again),
// the assets beside it, and the prepared embedded database a first start unpacks
// (dist/store/pglite-image.*).
//
//   node scripts/build.js              build (what `npm run build` and `npm ci` run)
//   node scripts/build.js --if-stale   build only when a source is newer than the last build
//                                      (what `npm start` runs first; a few milliseconds when not)
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const STAMP = 'dist/.build-stamp';
/** What the build reads: a change to any of them makes dist/ stale. */
const INPUTS = [
  'src',
  'releases',
  'scripts/build.js',
  'scripts/copy-assets.js',
  'scripts/build-data-image.js',
  'tsconfig.json',
  'tsconfig.build.json',
  'package-lock.json',
];

function newestChange(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const name of readdirSync(path)) newest = Math.max(newest, newestChange(join(path, name)));
  return newest;
}

function stale() {
  if (!existsSync(STAMP)) return true;
  const built = statSync(STAMP).mtimeMs;
  return INPUTS.some((input) => newestChange(input) > built);
}

function run(args) {
  const result = spawnSync(process.execPath, args, { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

if (process.argv.includes('--if-stale') && !stale()) process.exit(0);
// The stamp bears the time the build began: a source saved while it ran is newer than it.
const started = new Date();
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
run([tsc, '-p', 'tsconfig.build.json']);
run(['scripts/copy-assets.js']);
run(['scripts/build-data-image.js']);
writeFileSync(STAMP, `${started.toISOString()}\n`);
utimesSync(STAMP, started, started);
