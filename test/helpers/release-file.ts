import { readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import { BUNDLED_RELEASE } from '../../src/config/index.js';

let bundled: string | undefined;

/**
 * Writes the bundled release to `path` after `edit` changed its lines (line 0 is the header);
 * gzipped when `path` ends in `.gz`. Returns `path`.
 */
export function writeRelease(path: string, edit: (lines: string[]) => void): string {
  bundled ??= gunzipSync(readFileSync(BUNDLED_RELEASE)).toString('utf8');
  const lines = bundled.trimEnd().split('\n');
  edit(lines);
  const text = lines.join('\n') + '\n';
  writeFileSync(path, path.endsWith('.gz') ? gzipSync(text) : text);
  return path;
}

/** Sets the release version in the header line. */
export function setVersion(lines: string[], version: string): void {
  const header = JSON.parse(lines[0]!) as Record<string, unknown>;
  lines[0] = JSON.stringify({ ...header, version });
}

/** The bundled release's figures under a new version: a release the loader accepts again. */
export function writeReleaseVersion(path: string, version: string): string {
  return writeRelease(path, (lines) => setVersion(lines, version));
}
