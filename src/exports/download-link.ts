import { createHmac, hkdfSync } from 'node:crypto';
import { constantTimeEqual } from '../lib/crypto.js';

/**
 * Signed, expiring download links for the files of webhook-destination exports:
 * `<base>/api/v1/exports/files/<run_id>?expires=<unix seconds>&signature=<base64url HMAC>`.
 * The HMAC (SHA-256, a key derived from SECRET_KEY for this use only) covers the run id and
 * the expiry, so the link works without other credentials until then, and a changed id or
 * expiry (or signature) is refused.
 */
export interface DownloadLinks {
  url(runId: string, expiresAt: Date): string;
  /** Why a link is refused, or null when it is good at `nowMs`. */
  refusal(runId: string, expires: string, signature: string, nowMs: number): string | null;
}

export function createDownloadLinks(secretKey: string, baseUrl: string): DownloadLinks {
  const key = Buffer.from(hkdfSync('sha256', secretKey, 'salary-api', 'export-download-links', 32));
  const base = baseUrl.replace(/\/+$/, '');
  const sign = (runId: string, expires: string): string =>
    createHmac('sha256', key).update(`${runId}.${expires}`).digest('base64url');
  return {
    url(runId, expiresAt) {
      // Rounded up: the link lasts as long as the file (kept until expiresAt to the ms).
      const expires = String(Math.ceil(expiresAt.getTime() / 1000));
      const query = new URLSearchParams({ expires, signature: sign(runId, expires) });
      return `${base}/api/v1/exports/files/${encodeURIComponent(runId)}?${query.toString()}`;
    },
    refusal(runId, expires, signature, nowMs) {
      if (!/^\d{1,12}$/.test(expires) || !constantTimeEqual(signature, sign(runId, expires)))
        return 'the link is not valid (altered or incomplete)';
      if (Number(expires) * 1000 <= nowMs) return 'the link has expired';
      return null;
    },
  };
}
