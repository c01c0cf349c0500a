import type { Column, Row, Table } from '../formats/index.js';
import { EXTRA_FIELD_NAMES } from './fields.js';
import { SALARY_COLUMNS } from './table.js';

export type CustomSchema = {
  readonly fields: readonly { readonly field: string; readonly name: string }[];
};

/** Fields an Enterprise schema may choose from: the standard columns and every custom field. */
export const SCHEMA_SOURCE_FIELDS: readonly string[] = Object.freeze([
  ...SALARY_COLUMNS.map((c) => c.name),
  ...EXTRA_FIELD_NAMES,
]);
const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** What is wrong with a schema (empty when it is valid). */
export function schemaProblems(schema: CustomSchema): string[] {
  const problems: string[] = [];
  if (schema.fields.length === 0) problems.push('choose at least one field');
  const names = new Set<string>();
  for (const { field, name } of schema.fields) {
    if (!SCHEMA_SOURCE_FIELDS.includes(field)) problems.push(`unknown field ${field}`);
    if (!NAME.test(name))
      problems.push(`"${name}" is not a valid name (letters, digits, _; up to 64)`);
    if (names.has(name)) problems.push(`the name "${name}" is used twice`);
    names.add(name);
  }
  return problems;
}

/** The custom fields a schema needs computed, for the `fields` of a selection. */
export function withSchemaFields(
  requested: string | undefined,
  schema: CustomSchema | null,
): string | undefined {
  if (schema === null) return requested;
  const needed = schema.fields.map((f) => f.field).filter((f) => EXTRA_FIELD_NAMES.includes(f));
  const all = [
    ...new Set([
      ...(requested === undefined || requested === '' ? [] : requested.split(',')),
      ...needed,
    ]),
  ];
  return all.length === 0 ? undefined : all.join(',');
}

/** The schema's columns, and how one row of the full table becomes one of them. */
export function schemaShape(
  columns: readonly Column[],
  schema: CustomSchema,
): { columns: Column[]; row: (row: Row) => Row } {
  const byName = new Map(columns.map((c) => [c.name, c]));
  const picked = schema.fields.filter((f) => byName.has(f.field));
  return {
    columns: picked.map((f) => ({ ...byName.get(f.field)!, name: f.name })),
    row: (row) => Object.fromEntries(picked.map((f) => [f.name, row[f.field] ?? null])),
  };
}

/** The table with only the schema's fields, in its order, under its names. */
export function applySchema(table: Table, schema: CustomSchema): Table {
  const shape = schemaShape(table.columns, schema);
  return { rowName: table.rowName, columns: shape.columns, rows: table.rows.map(shape.row) };
}
