#!/usr/bin/env node
// The package's CLI. Runs the compiled code; `npm run build` (done by `npm start`) makes it.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const compiled = fileURLToPath(new URL('../dist/main/cli.js', import.meta.url));
if (!existsSync(compiled)) {
  console.error('salary-api: dist/ is missing; run `npm run build` first.');
  process.exit(1);
}
await import(compiled);
