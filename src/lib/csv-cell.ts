/**
 * A text cell a spreadsheet will not run: one starting with `=`, `+`, `-`, `@`, a tab or a
 * carriage return is prefixed with `'` (OWASP CSV injection). Numbers are left as they are.
 */
export function safeCell(value: string | number | null): string | number {
  if (value === null) return '';
  if (typeof value === 'number') return value;
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}
