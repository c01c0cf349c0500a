/**
 * Reading the object tree fast-xml-parser makes of an ISO 20022 message (camt.05x, pain.002):
 * an element is an object, a repeated element an array, a text with attributes `#text`.
 */

export type XmlNode = Record<string, unknown>;

/** The element as an object, or undefined (a text, an array, absent). */
export const node = (v: unknown): XmlNode | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as XmlNode) : undefined;

/** The element's occurrences: none, one or many. */
export const list = (v: unknown): XmlNode[] =>
  (Array.isArray(v) ? v : v === undefined ? [] : [v]).map(node).filter((n) => n !== undefined);

/** The element's text, trimmed. */
export const text = (v: unknown): string | undefined => {
  if (typeof v === 'string') return v.trim();
  const n = node(v);
  return typeof n?.['#text'] === 'string' ? n['#text'].trim() : undefined;
};

/** The element at `path` below `v`. */
export const at = (v: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>((cur, key) => node(cur)?.[key], v);
