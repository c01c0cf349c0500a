import { environmentRows, type VariableRow } from './environment.js';

/** The document whose first table lists the environment variables. */
export const CONFIGURATION_DOC = 'docs/configuration.md';

const HEADER = '| Variable | Default | Meaning |\n| --- | --- | --- |';

/** The table as Markdown, one row per variable (before formatting). */
export function variableTable(): string {
  const cell = (text: string): string => text.replace(/\|/g, '\\|');
  const rows = environmentRows().map(
    (row) => `| \`${row.name}\` | ${cell(row.shownDefault)} | ${cell(row.description)} |`,
  );
  return [HEADER, ...rows].join('\n');
}

/** The document's first table, read back into rows (cells trimmed, padding dropped). */
export function documentedRows(markdown: string): VariableRow[] {
  const lines = markdown.split('\n');
  const first = lines.findIndex((line) => line.startsWith('| Variable'));
  const rows: VariableRow[] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break;
    const cells = line
      .slice(1, -1)
      .split(/(?<!\\)\|/)
      .map((cell) => cell.trim().replace(/\\\|/g, '|'));
    rows.push({
      name: cells[0]!.replace(/`/g, ''),
      shownDefault: cells[1]!,
      description: cells[2]!,
    });
  }
  return rows;
}

/** The document with its first table replaced by the schema's. */
export function replaceVariableTable(markdown: string): string {
  const lines = markdown.split('\n');
  const first = lines.findIndex((line) => line.startsWith('| Variable'));
  if (first < 0) throw new Error(`${CONFIGURATION_DOC} has no table of variables`);
  let end = first;
  while (end < lines.length && lines[end]!.startsWith('|')) end++;
  return [...lines.slice(0, first), variableTable(), ...lines.slice(end)].join('\n');
}
