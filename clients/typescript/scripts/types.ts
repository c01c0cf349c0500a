import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';
import { format, resolveConfig } from 'prettier';

/** Where the generated types live: never edited by hand, regenerated with `npm run generate`. */
export const GENERATED_TYPES = new URL('../src/generated/openapi.ts', import.meta.url);

/** The TypeScript types of an OpenAPI document, formatted as the repository formats code. */
export async function typesOf(document: object): Promise<string> {
  const ast = await openapiTS(document as Parameters<typeof openapiTS>[0], {
    alphabetize: true,
  });
  const config = (await resolveConfig(GENERATED_TYPES)) ?? {};
  return format(`/* eslint-disable */\n${COMMENT_HEADER}${astToString(ast)}`, {
    ...config,
    parser: 'typescript',
  });
}
