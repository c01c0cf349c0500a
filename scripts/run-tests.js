// Runs every *.test.ts under src/, test/ and the TypeScript client (clients/typescript/) with node:test through tsx.
// Node 20's --test does not expand globs, so the files are listed here.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function collect(dir, out) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) collect(path, out);
    else if (name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

const filter = process.argv.slice(2);
const files = ['src', 'test', 'clients/typescript']
  .flatMap((dir) => collect(dir, []))
  .filter((f) => filter.length === 0 || filter.some((part) => f.includes(part)))
  .sort();
const result = spawnSync(
  process.execPath,
  // --test-force-exit: a file whose tests have all finished must not hold the run open because
  // something it started (a socket, a timer) keeps its event loop alive; the suite then waited
  // forever on such a file instead of failing or finishing. Its cost (nodejs/node#64833): a
  // child can exit before its last results reach this process over the pipe, so the totals
  // printed at the end are a lower bound (a few tests short on some runs). A failure still fails
  // the run: the child's exit code fails its file, though the failing test's own report can be
  // missing; rerun that file alone (`npm test -- <path>`) to see it.
  ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-force-exit', ...files],
  { stdio: 'inherit' },
);
process.exit(result.status ?? 1);
