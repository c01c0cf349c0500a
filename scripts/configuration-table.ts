/**
 * Writes the table of environment variables in docs/configuration.md from the schema in
 * src/config/environment.ts (`npm run docs:configuration`); src/config/environment.test.ts
 * fails while the two differ.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import prettier from 'prettier';
import { CONFIGURATION_DOC, replaceVariableTable } from '../src/config/environment-doc.js';

const path = fileURLToPath(new URL(`../${CONFIGURATION_DOC}`, import.meta.url));
const written = replaceVariableTable(readFileSync(path, 'utf8'));
const options = (await prettier.resolveConfig(path)) ?? {};
writeFileSync(path, await prettier.format(written, { ...options, filepath: path }));
console.log(`${CONFIGURATION_DOC}: table written from src/config/environment.ts`);
