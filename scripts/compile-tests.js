// The repository as the test files' processes run it: every TypeScript file (the tests, src/,
// scripts/, the client) compiled to JavaScript by esbuild (the transform tsx runs, done once
// for the run instead of in every file's process), in a directory of its own that mirrors the
// repository. The rest is linked: each .ts file beside its .js (a test that reads the sources
// finds them), every other file, and the folders without TypeScript (node_modules, dist/,
// docs/, releases/ …), so that paths relative to a module (`new URL('../../docs/',
// import.meta.url)`) reach what they reach in the repository. Stack traces name the .ts
// sources (inline source maps; node runs with --enable-source-maps).
import { build } from 'esbuild';
import { mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** Folders never compiled: linked as they are. */
const LINKED = new Set(['node_modules', 'dist', '.git']);

const isSource = (name) => name.endsWith('.ts') && !name.endsWith('.d.ts');

/** The TypeScript sources under `dir` (relative to `root`), and the folders that hold any. */
function sources(root, dir, found) {
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = dir === '' ? entry.name : join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!LINKED.has(entry.name)) sources(root, path, found);
    } else if (entry.isFile() && isSource(entry.name)) {
      found.files.push(path);
      for (let d = dir; d !== '' && d !== '.'; d = dirname(d)) found.dirs.add(d);
    }
  }
  return found;
}

/** Links every entry of `dir` into `out`, going into the folders that hold TypeScript. */
function link(root, out, dir, dirs) {
  mkdirSync(join(out, dir), { recursive: true });
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = dir === '' ? entry.name : join(dir, entry.name);
    if (entry.isDirectory() && dirs.has(path)) link(root, out, path, dirs);
    else symlinkSync(join(root, path), join(out, path));
  }
}

/**
 * Compiles the repository at `root` into `out` (an empty directory); returns the number of
 * files compiled.
 */
export async function compileTests(root, out) {
  const absolute = resolve(root);
  const found = sources(absolute, '', { files: [], dirs: new Set() });
  await build({
    absWorkingDir: absolute,
    entryPoints: found.files,
    outdir: out,
    outbase: '.',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'inline',
    logLevel: 'error',
  });
  link(absolute, out, '', found.dirs);
  return found.files.length;
}
