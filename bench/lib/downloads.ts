import { setTimeout as sleep } from 'node:timers/promises';
import { measure, type Measurement } from './load.js';
import type { BenchOptions } from './options.js';
import type { ServerProcess } from './processes.js';

/** The full archive (every year the plan reaches) as Excel: seconds of work per file. */
const ARCHIVE_XLSX = '/api/v1/bulk/archive?year=all&format=xlsx';
export const DOWNLOADERS = 8;
export const HEALTH_CONNECTIONS = 2;

/** How the downloads went: answers by status, and each complete file's body seen by `onFile`. */
export interface Downloads {
  readonly statuses: Record<string, number>;
}

/**
 * Runs `during` while `DOWNLOADERS` clients download the full archive as Excel in a loop with an
 * Enterprise key (starting a second before it). The download cap lets a few run at once; the
 * others are told 429/503 with Retry-After and try again 200 ms later.
 */
export async function whileArchivesDownload<T>(
  server: ServerProcess,
  key: string,
  during: () => Promise<T>,
  onFile: (body: Buffer) => void = () => undefined,
): Promise<Downloads & { result: T }> {
  const statuses: Record<string, number> = {};
  let stop = false;
  const download = async (): Promise<void> => {
    while (!stop) {
      const response = await fetch(`${server.baseUrl}${ARCHIVE_XLSX}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      const body = Buffer.from(await response.arrayBuffer());
      statuses[response.status] = (statuses[response.status] ?? 0) + 1;
      if (response.status === 200) onFile(body);
      else await sleep(200);
    }
  };
  const downloaders = Array.from({ length: DOWNLOADERS }, download);
  try {
    await sleep(1000);
    return { statuses, result: await during() };
  } finally {
    stop = true;
    await Promise.all(downloaders);
  }
}

/**
 * /health measured (wrk, 2 connections) while 8 clients download the full archive as Excel.
 * Returns the /health row and how the downloads went.
 */
export async function healthUnderDownloads(
  server: ServerProcess,
  key: string,
  options: BenchOptions,
): Promise<{ row: Measurement; statuses: Record<string, number> }> {
  const { statuses, result: row } = await whileArchivesDownload(server, key, () =>
    measure(
      {
        name: `/health while ${DOWNLOADERS} clients download the full archive as Excel`,
        server,
        path: '/health',
        connections: HEALTH_CONNECTIONS,
      },
      { ...options, warmup: 0 },
    ),
  );
  return { row, statuses };
}
