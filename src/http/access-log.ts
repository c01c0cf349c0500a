import type { Logger } from '../lib/logger.js';

export interface AccessLine {
  /** Given when the logger does not already carry it (Fastify's request logger does). */
  readonly requestId?: string;
  readonly method: string;
  readonly url: string;
  readonly status: number;
  readonly ms: number;
  readonly ip: string;
  readonly accountId: string | null;
}

/** One JSON line per request, the same fields whichever path (Fastify or the fast path) served it. */
export function writeAccessLine(log: Logger, line: AccessLine): void {
  log.info(
    {
      request_id: line.requestId,
      method: line.method,
      url: line.url,
      status: line.status,
      ms: Math.round(line.ms * 100) / 100,
      ip: line.ip,
      account: line.accountId ?? undefined,
    },
    'request',
  );
}
