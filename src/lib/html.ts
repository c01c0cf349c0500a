/**
 * The HTML kit of the site and the dashboard: `markup` templates whose interpolations are escaped
 * unless they are already `Html`.
 */

/** HTML that is already safe: built by `markup` or produced by trusted code (Markdown, SVG). */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string): string {
  return /[&<>"']/.test(text) ? text.replace(/[&<>"']/g, (c) => ESCAPES[c] as string) : text;
}

/** What a template interpolates: `false`, null and undefined render nothing (conditional parts). */
type Part = Html | string | number | boolean | null | undefined | readonly Part[];

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return '';
  if (part instanceof Html) return part.value;
  if (Array.isArray(part)) return (part as readonly Part[]).map(render).join('');
  return escapeHtml(String(part));
}

/** A template whose interpolations are escaped unless they are `Html` (nested templates). */
export function markup(strings: TemplateStringsArray, ...parts: Part[]): Html {
  let out = strings[0] ?? '';
  for (let i = 0; i < parts.length; i += 1) out += render(parts[i]) + (strings[i + 1] ?? '');
  return new Html(out);
}

/** JSON for a `<script type="application/json">` block: `<` escaped so no tag can close it. */
export function jsonData(value: unknown): Html {
  return new Html(JSON.stringify(value).replace(/</g, '\\u003c'));
}
