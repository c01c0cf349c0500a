import type { EnvironmentName } from './environment.js';
import { accessSync, constants } from 'node:fs';

/** The legal pages the site serves, each from the operator's own text or a template. */
export const LEGAL_DOCUMENTS = ['terms', 'privacy', 'dpa', 'imprint'] as const;
export type LegalDocument = (typeof LEGAL_DOCUMENTS)[number];

/** The setting naming the file of each legal text. */
export const LEGAL_FILE_SETTINGS: Readonly<Record<LegalDocument, EnvironmentName>> = {
  terms: 'LEGAL_TERMS_FILE',
  privacy: 'LEGAL_PRIVACY_FILE',
  dpa: 'LEGAL_DPA_FILE',
  imprint: 'LEGAL_IMPRINT_FILE',
};

/** The LEGAL_*_FILE settings that are given: each must name a readable file. */
export function legalFilesOf(
  str: (name: EnvironmentName) => string | undefined,
  pathOf: (raw: string) => string,
  problems: string[],
): Readonly<Partial<Record<LegalDocument, string>>> {
  const files: Partial<Record<LegalDocument, string>> = {};
  for (const document of LEGAL_DOCUMENTS) {
    const name = LEGAL_FILE_SETTINGS[document];
    const raw = str(name);
    if (raw === undefined) continue;
    const path = pathOf(raw);
    try {
      accessSync(path, constants.R_OK);
      files[document] = path;
    } catch {
      problems.push(`${name} must name a readable Markdown file (got "${raw}")`);
    }
  }
  return Object.freeze(files);
}
