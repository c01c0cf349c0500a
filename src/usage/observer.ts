import { usageKeyOf } from '../auth/index.js';
import type { ResponseObserver } from '../http/responses.js';
import type { UsageRecorder } from './recorder.js';

const API_PREFIX = '/api/v1/';

/**
 * Counts an answered API request in usage and, when given, in the SLA's counts (with the
 * server's own time on it unless its route is not judged by time). Pages and test-mode keys
 * are outside both (docs/test-mode.md).
 */
export function usageObserver(
  recorder: UsageRecorder,
  sla?: { count(accountId: string | null, status: number, at: number, ms?: number): void },
): ResponseObserver {
  return (a) => {
    if (!a.route.startsWith(API_PREFIX) && !a.url.startsWith(API_PREFIX)) return;
    if (a.principal?.mode === 'test') return;
    const accountId = a.principal?.accountId ?? null;
    recorder.record(accountId, usageKeyOf(a.principal), a.endpoint, a.status, a.at);
    sla?.count(accountId, a.status, a.at, a.timed ? a.ms : undefined);
  };
}
