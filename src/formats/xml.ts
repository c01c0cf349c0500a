import { XMLBuilder } from 'fast-xml-parser';
import type { Table } from './table.js';

export const XML_NAMESPACE = 'https://salary-api.eu/schema/v1';

/**
 * `<salaries xmlns="…"><salary><country>DE</country>…</salary></salaries>`: one element per
 * row, one child per column in table order; empty values are empty elements. The schema is
 * documented in docs/formats.md.
 */
export function toXml(table: Table, rootName: string, attributes: Record<string, string>): Buffer {
  const builder = new XMLBuilder({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    format: true,
    suppressEmptyNode: false,
  });
  const rows = table.rows.map((row) =>
    Object.fromEntries(
      table.columns.map((c) => [
        c.name,
        row[c.name] === null || row[c.name] === undefined ? '' : String(row[c.name]),
      ]),
    ),
  );
  const root = {
    '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8' },
    [rootName]: {
      '@_xmlns': XML_NAMESPACE,
      ...Object.fromEntries(Object.entries(attributes).map(([k, v]) => [`@_${k}`, v])),
      [table.rowName]: rows,
    },
  };
  return Buffer.from(builder.build(root), 'utf8');
}
