import { mock } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { BUNDLED_RELEASE } from '../../src/config/index.js';
import { prefixedId } from '../../src/lib/ids.js';
import { readReleaseFile, type ParsedRelease } from '../../src/releases/index.js';
import type { TestApp } from './app.js';
import type { Received } from './receiver.js';

/** Registers an endpoint through the API; returns its id and secret. */
export async function registerWebhook(
  t: TestApp,
  apiKey: string,
  url: string,
): Promise<{ id: string; secret: string }> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/webhooks',
    headers: { authorization: `Bearer ${apiKey}` },
    payload: { url, events: ['data.updated'] },
  });
  if (res.statusCode !== 201) throw new Error(`webhook not created: ${res.body}`);
  return res.json<{ id: string; secret: string }>();
}

/** Records a data.updated event and its deliveries in one transaction, as a release load does. */
export async function recordEvent(
  t: TestApp,
  data: unknown = { release: 'test' },
): Promise<string> {
  const id = prefixedId('evt');
  await t.db.transaction(async (tx) => {
    await tx.query('INSERT INTO events (id, type, created_at, data) VALUES ($1, $2, $3, $4)', [
      id,
      'data.updated',
      new Date(t.clock.now()).toISOString(),
      JSON.stringify(data),
    ]);
    await t.webhooks.publish(tx, { id, type: 'data.updated' });
  });
  return id;
}

let bundled: Promise<ParsedRelease> | undefined;

/** The bundled release under a new version with one figure changed. */
export async function changedRelease(version: string): Promise<ParsedRelease> {
  bundled ??= readReleaseFile(BUNDLED_RELEASE);
  const base = await bundled;
  const records = base.records.map((r, i) => (i === 0 ? { ...r, median: r.median + 100 } : r));
  return { ...base, header: { ...base.header, version }, records };
}

/** Verifies a received request with the standardwebhooks library (timestamp tolerance included). */
export function verify(secret: string, req: Received): unknown {
  return new Webhook(secret).verify(req.body, req.headers as Record<string, string>);
}

/**
 * Verifies with the standardwebhooks library as a receiver would at `atMs` (the library reads
 * `Date.now()` for its 5-minute tolerance; it sees `atMs` during the call). Throws as it does.
 */
export function verifyAt(secret: string, req: Received, atMs: number): unknown {
  const now = mock.method(Date, 'now', () => atMs);
  try {
    return verify(secret, req);
  } finally {
    now.mock.restore();
  }
}

/** The signature the standardwebhooks library computes, for requests signed at a moved clock. */
export function librarySignature(secret: string, req: Received): string {
  const ts = new Date(Number(req.headers['webhook-timestamp']) * 1000);
  return new Webhook(secret).sign(req.headers['webhook-id'] as string, ts, req.body);
}

/** Whether one of the request's signatures is the one the library computes with `secret`. */
export function signedWith(secret: string, req: Received): boolean {
  const expected = librarySignature(secret, req);
  return (req.headers['webhook-signature'] as string).split(' ').includes(expected);
}
