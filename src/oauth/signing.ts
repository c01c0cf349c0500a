import { exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import { randomBytes } from 'node:crypto';
import type { SecretBox } from '../lib/secret-box.js';
import type { Queryable } from '../store/index.js';
import { insertSigningKey, type SigningKeyRow } from './repo.js';

export const SIGNING_ALG = 'ES256';

/** A new ES256 key: its public JWK and its private JWK sealed under SECRET_KEY. */
export async function newSigningKey(
  box: SecretBox,
): Promise<{ kid: string; alg: string; publicJwk: JWK; privateEnc: string }> {
  const { publicKey, privateKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
  const kid = randomBytes(12).toString('base64url');
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: SIGNING_ALG, use: 'sig' };
  const privateJwk = await exportJWK(privateKey);
  return { kid, alg: SIGNING_ALG, publicJwk, privateEnc: box.seal(JSON.stringify(privateJwk)) };
}

/** A published key as the verifier holds it. */
export interface PublishedKey {
  readonly row: SigningKeyRow;
  readonly key: CryptoKey;
}

export async function publishedKey(row: SigningKeyRow): Promise<PublishedKey> {
  return { row, key: (await importJWK(row.publicJwk, row.alg)) as CryptoKey };
}

export async function privateKeyOf(row: SigningKeyRow, box: SecretBox): Promise<CryptoKey> {
  return (await importJWK(JSON.parse(box.open(row.privateEnc)) as JWK, row.alg)) as CryptoKey;
}

/** Adds a new signing key that signs from now on; the others stay published until their tokens expire. */
export async function rotateSigningKey(db: Queryable, box: SecretBox, at: Date): Promise<string> {
  const key = await newSigningKey(box);
  await insertSigningKey(db, key, at.toISOString());
  return key.kid;
}
