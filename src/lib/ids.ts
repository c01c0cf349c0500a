import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

/**
 * Request ids: a random per-process prefix and a counter. Unique across instances and cheap
 * enough for the hot path (no randomness per request).
 */
export function requestIdGenerator(): () => string {
  const prefix = `req_${randomBytes(6).toString('hex')}`;
  let counter = 0;
  return () => `${prefix}${(++counter).toString(36).padStart(6, '0')}`;
}

/** A random, prefixed identifier for stored objects (`evt_…`, `rel_…`). */
export function prefixedId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('base64url')}`;
}

/**
 * Who holds a claim or lease: host, process and a random part, so two holders in one process
 * (a worker and the billing timer, or two workers in a test) are told apart too.
 */
export function holderId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
}
