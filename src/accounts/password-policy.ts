const COMMON = new Set([
  'password1234',
  'password12345',
  'password123456',
  '123456789012',
  '1234567890123',
  'qwertyuiopas',
  'qwerty123456',
  'iloveyou1234',
  'administrator',
  'letmein12345',
  'welcome12345',
  'changeme1234',
  'passwordpassword',
  '111111111111',
  'abcdefghijkl',
]);

/** The shortest password accepted. */
export const MIN_PASSWORD_LENGTH = 12;

/** The rule as a form states it beside a new password's field. */
export const PASSWORD_RULE = `At least ${MIN_PASSWORD_LENGTH} characters, not a common password and not your e-mail address.`;

/** Why a password is refused, or undefined when it is acceptable (NIST 800-63B style). */
export function passwordProblem(password: string, email: string): string | undefined {
  if (password.length < MIN_PASSWORD_LENGTH)
    return `it must have at least ${MIN_PASSWORD_LENGTH} characters`;
  if (password.length > 256) return 'it must have at most 256 characters';
  if (new Set(password).size === 1) return 'it must not be one repeated character';
  if (COMMON.has(password.toLowerCase())) return 'it is a well-known password';
  const name = email.split('@')[0]?.toLowerCase() ?? '';
  if (name.length >= 4 && password.toLowerCase().includes(name))
    return 'it must not contain the e-mail address';
  return undefined;
}

const EMAIL =
  /^[^\s@<>()[\]\\,;:"]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

export function isEmail(value: string): boolean {
  return value.length <= 254 && EMAIL.test(value);
}

/**
 * The one form of an e-mail address that sign-up stores and log-in looks up, throttles and
 * counts: Unicode NFC, without surrounding whitespace of any kind, lower case. Every spelling
 * of one address (" Alice@Example.com\t") is then one account and one throttle bucket.
 */
export function normalizeEmail(raw: string): string {
  return raw.normalize('NFC').trim().toLowerCase();
}
