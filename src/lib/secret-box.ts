import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/** Encrypts small secrets for storage (AES-256-GCM); the key is derived from SECRET_KEY. */
export interface SecretBox {
  seal(plaintext: string): string;
  open(sealed: string): string;
}

const VERSION = 'v1';

/**
 * HKDF-SHA256 turns SECRET_KEY (any string of 32+ characters) into a 256-bit key; `purpose`
 * separates keys per use, so one SECRET_KEY can serve several features. Sealed form:
 * `v1.<iv>.<ciphertext+tag>` (base64url); a fresh 96-bit IV per seal.
 */
export function createSecretBox(secretKey: string, purpose: string): SecretBox {
  const key = Buffer.from(hkdfSync('sha256', secretKey, 'salary-api', purpose, 32));
  return {
    seal(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([
        cipher.update(plaintext, 'utf8'),
        cipher.final(),
        cipher.getAuthTag(),
      ]);
      return `${VERSION}.${iv.toString('base64url')}.${body.toString('base64url')}`;
    },
    open(sealed) {
      const [version, ivText, bodyText] = sealed.split('.');
      if (version !== VERSION || ivText === undefined || bodyText === undefined) {
        throw new Error('not a sealed secret');
      }
      const body = Buffer.from(bodyText, 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(ivText, 'base64url'));
      decipher.setAuthTag(body.subarray(body.length - 16));
      return Buffer.concat([
        decipher.update(body.subarray(0, body.length - 16)),
        decipher.final(),
      ]).toString('utf8');
    },
  };
}
