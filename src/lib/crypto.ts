import { hash, randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** One-shot hashing (Node 20.12+): about a quarter of createHash's cost for a short input. */
export function sha256Hex(value: string): string {
  return hash('sha256', value, 'hex');
}

/** A random secret with a readable prefix, e.g. `sk_live_…` (bytes of entropy, base64url). */
export function randomSecret(prefix: string, bytes = 32): string {
  return `${prefix}${randomBytes(bytes).toString('base64url')}`;
}

/** Compares two strings in time independent of where they differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

// scrypt (memory-hard): N = 2^15, r = 8 → 32 MiB per hash; about 50–100 ms on one core.
const SCRYPT = { N: 32768, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } satisfies ScryptOptions;
let cost = SCRYPT.N;

/**
 * scrypt's N for the hashes this process makes from now on; each hash names its own, so every
 * hash verifies whatever it was made with. Only the test suite lowers it (its passwords protect
 * nothing, and thousands of sign-ups at 2^15 cost minutes of CPU).
 */
export function setPasswordHashCost(n: number): void {
  cost = n;
}
const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, options, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

/** `scrypt$N$r$p$salt$hash`, parameters stored so they can be raised later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, { ...SCRYPT, N: cost });
  return [
    'scrypt',
    cost,
    SCRYPT.r,
    SCRYPT.p,
    salt.toString('base64url'),
    key.toString('base64url'),
  ].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [kind, n, r, p, salt, hash] = stored.split('$');
  if (kind !== 'scrypt' || salt === undefined || hash === undefined) return false;
  const options = { N: Number(n), r: Number(r), p: Number(p), maxmem: SCRYPT.maxmem };
  const key = await derive(password, Buffer.from(salt, 'base64url'), options);
  const expected = Buffer.from(hash, 'base64url');
  return key.length === expected.length && timingSafeEqual(key, expected);
}

let dummy: Promise<string> | undefined;

/** A hash of a throwaway password, so log-in for an unknown e-mail costs the same time. */
export function dummyPasswordHash(): Promise<string> {
  dummy ??= hashPassword(randomBytes(16).toString('hex'));
  return dummy;
}
