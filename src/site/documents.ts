import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const DOCS = new URL('../../docs/', import.meta.url);

/** A document of docs/ as text. */
export function readDoc(name: string): string {
  return readFileSync(fileURLToPath(new URL(name, DOCS)), 'utf8');
}

/** A document of docs/ that a build may or may not have written; undefined when absent. */
export function readOptionalDoc(name: string): string | undefined {
  const path = fileURLToPath(new URL(name, DOCS));
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
}

/** CHANGELOG.md: the dated versions, shown as the site's changelog. */
export function readChangelog(): string {
  return readFileSync(fileURLToPath(new URL('../../CHANGELOG.md', import.meta.url)), 'utf8');
}
