import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { loadConfig } from '../../src/config/index.js';
import { ManualClock } from '../../src/lib/clock.js';
import { createServer } from '../../src/main/wire.js';
import type { Db } from '../../src/store/index.js';
import { clonePglite } from './db.js';

export interface TestApp {
  app: FastifyInstance;
  services: Awaited<ReturnType<typeof createServer>>['services'];
  recorder: Awaited<ReturnType<typeof createServer>>['recorder'];
  clock: ManualClock;
  db: Db;
  close(): Promise<void>;
}

/**
 * The real API wired as `serve` wires it, on a private PGlite copy and a manual clock,
 * called in-process with `app.inject`. `env` adds configuration variables.
 */
export async function buildTestApp(
  options: { env?: Record<string, string>; now?: string; db?: Db } = {},
): Promise<TestApp> {
  const clock = new ManualClock(options.now ?? '2026-11-22T10:15:00Z');
  const owned = options.db === undefined ? await clonePglite() : undefined;
  const db = options.db ?? owned!.db;
  const config = loadConfig({ LOG_LEVEL: 'silent', ACCESS_LOG: 'false', ...options.env });
  const server = await createServer(config, { clock, db, logger: pino({ level: 'silent' }) });
  await server.app.ready();
  return {
    app: server.app,
    services: server.services,
    recorder: server.recorder,
    clock,
    db,
    async close() {
      await server.close();
      await owned?.cleanup();
    },
  };
}
