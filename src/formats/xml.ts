import { XMLBuilder } from 'fast-xml-parser';
import type { ChunkedTable } from './table.js';

export const XML_NAMESPACE = 'https://salary-api.eu/schema/v1';
/** The namespace of white-label files: the same schema, named by no provider. */
export const NEUTRAL_XML_NAMESPACE = 'urn:x-licensed-data:pay-percentiles:v1';

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};
const escapeAttribute = (value: string): string => value.replace(/[&<>"']/g, (c) => ENTITIES[c]!);

/**
 * `<salaries xmlns="…"><salary><country>DE</country>…</salary></salaries>`: one element per
 * row, one child per column in table order; empty values are empty elements. The schema is
 * documented in docs/formats.md. Written in chunks of rows, so a large table streams.
 */
export async function* xmlChunks(
  table: ChunkedTable,
  rootName: string,
  attributes: Record<string, string>,
): AsyncGenerator<string> {
  const builder = new XMLBuilder({ format: true, indentBy: '  ', suppressEmptyNode: false });
  const attrs = Object.entries({ xmlns: XML_NAMESPACE, ...attributes })
    .map(([k, v]) => ` ${k}="${escapeAttribute(v)}"`)
    .join('');
  yield `<?xml version="1.0" encoding="UTF-8"?>\n<${rootName}${attrs}>\n`;
  for await (const rows of table.chunks) {
    const elements = rows.map((row) =>
      Object.fromEntries(
        table.columns.map((c) => {
          const value = row[c.name];
          return [c.name, value === null || value === undefined ? '' : String(value)];
        }),
      ),
    );
    yield builder.build({ [table.rowName]: elements });
  }
  yield `</${rootName}>\n`;
}
