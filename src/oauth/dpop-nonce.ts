import { createHmac, hkdfSync } from 'node:crypto';

/** Where the server requires a nonce in DPoP proofs (RFC 9449 §8 and §9): `DPOP_NONCE`. */
export type DpopNonceMode = 'off' | 'token' | 'all';

/** A nonce is handed out for one window and accepted through the next: 60 to 120 seconds. */
export const NONCE_WINDOW_MS = 60_000;

/**
 * Server-provided DPoP nonces without state: the nonce of a time window is an HMAC of the
 * window's number under a key derived from SECRET_KEY, so every instance hands out and accepts
 * the same nonces with nothing shared. A proof's nonce is accepted when it is the current
 * window's or the previous one's. The two are computed once per window: checking a proof's
 * nonce is a string comparison, no crypto.
 */
export class DpopNonces {
  readonly #key: Buffer;
  #window = Number.NaN;
  #current = '';
  #previous = '';

  constructor(
    secretKey: string,
    readonly mode: DpopNonceMode,
  ) {
    this.#key = Buffer.from(hkdfSync('sha256', secretKey, 'salary-api', 'dpop-nonces', 32));
  }

  /** Whether proofs at the token endpoint (`token`) or on resource requests (`resource`) need one. */
  required(where: 'token' | 'resource'): boolean {
    return this.mode === 'all' || (this.mode === 'token' && where === 'token');
  }

  /** The nonce to hand out now (the `DPoP-Nonce` header). */
  current(now: number): string {
    this.#roll(now);
    return this.#current;
  }

  /** Whether `nonce` (a proof's claim) is this window's or the previous one's. */
  accepts(nonce: unknown, now: number): boolean {
    this.#roll(now);
    return typeof nonce === 'string' && (nonce === this.#current || nonce === this.#previous);
  }

  #roll(now: number): void {
    const window = Math.floor(now / NONCE_WINDOW_MS);
    if (window === this.#window) return;
    this.#current = this.#nonceOf(window);
    this.#previous = this.#nonceOf(window - 1);
    this.#window = window;
  }

  #nonceOf(window: number): string {
    return createHmac('sha256', this.#key).update(`dpop-nonce:${window}`).digest('base64url');
  }
}
