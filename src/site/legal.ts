import { readFileSync } from 'node:fs';
import { LEGAL_DOCUMENTS, type LegalDocument, type Seller } from '../config/index.js';
import { readDoc } from './documents.js';
import type { Html } from '../lib/html.js';
import { renderMarkdown } from './markdown.js';

/** Each legal page's address, title and what it is for. */
export const LEGAL_PAGES: Readonly<
  Record<LegalDocument, { path: string; title: string; description: string }>
> = {
  terms: {
    path: '/legal/terms',
    title: 'Terms of service',
    description: 'The terms every use of the service is under.',
  },
  privacy: {
    path: '/legal/privacy',
    title: 'Privacy policy',
    description: 'What personal data the service processes, why, and your rights.',
  },
  dpa: {
    path: '/legal/dpa',
    title: 'Data processing agreement',
    description: 'The agreement under Art. 28 GDPR for customers who are controllers.',
  },
  imprint: {
    path: '/legal/imprint',
    title: 'Imprint',
    description: 'Who operates this service.',
  },
};

export interface LegalSettings {
  seller: Seller;
  supportEmail: string | undefined;
  /** The operator's own texts; a document without one is the template of docs/legal/. */
  files: Readonly<Partial<Record<LegalDocument, string>>>;
}

export interface LegalText {
  body: Html;
  /** True when the shipped template stands in for the operator's own text. */
  template: boolean;
}

const escapeText = (text: string): string =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/** The template's fields from the operator's settings; one not set says which setting fills it. */
function templateFields(settings: LegalSettings): Record<string, string> {
  const { seller } = settings;
  return {
    seller_name: seller.name,
    seller_address:
      seller.address.length > 0
        ? [...seller.address, ...(seller.country === null ? [] : [seller.country])].join(', ')
        : '[address not set: SELLER_ADDRESS]',
    seller_vat_number: seller.vatNumber ?? '[not set: SELLER_VAT_NUMBER]',
    support_email:
      settings.supportEmail === undefined
        ? '[not set: SUPPORT_EMAIL]'
        : (/<([^<>]+)>\s*$/.exec(settings.supportEmail)?.[1] ?? settings.supportEmail),
  };
}

/** Every legal page's text, read once: the operator's file, else the filled template. */
export function legalTexts(settings: LegalSettings): Record<LegalDocument, LegalText> {
  const fields = templateFields(settings);
  const texts = {} as Record<LegalDocument, LegalText>;
  for (const document of LEGAL_DOCUMENTS) {
    const file = settings.files[document];
    if (file !== undefined) {
      texts[document] = { body: renderMarkdown(readFileSync(file, 'utf8')), template: false };
      continue;
    }
    const filled = readDoc(`legal/${document}.md`).replace(
      /\{\{(\w+)\}\}/g,
      (whole, name: string) => escapeText(fields[name] ?? whole),
    );
    texts[document] = { body: renderMarkdown(filled), template: true };
  }
  return texts;
}
