// Regenerates src/generated/openapi.ts from the API's OpenAPI document: the served one with
// `--url http://host:port/api/v1/openapi.json`, otherwise the app's own, built in-process.
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { buildTestApp } from '../../../test/helpers/app.js';
import { GENERATED_TYPES, typesOf } from './types.js';

const { values } = parseArgs({ options: { url: { type: 'string' } } });

async function documentOf(url: string | undefined): Promise<object> {
  if (url !== undefined) return (await (await fetch(url)).json()) as object;
  const t = await buildTestApp();
  try {
    return t.app.swagger();
  } finally {
    await t.close();
  }
}

await writeFile(GENERATED_TYPES, await typesOf(await documentOf(values.url)));
console.log(`wrote ${GENERATED_TYPES.pathname}`);
