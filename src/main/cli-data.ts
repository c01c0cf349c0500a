import type { Config } from '../config/index.js';
import { systemClock } from '../lib/clock.js';
import { resolvePlans } from '../plans/index.js';
import { createReleaseService, readReleaseFile } from '../releases/index.js';
import { openPublishingBus } from '../store/index.js';
import { webhookPublisher } from '../webhooks/index.js';
import { commandLogger, openConfiguredDatabase } from './cli-database.js';

/** `migrate`, `data load FILE` and `data status`. */
export async function migrateCommand(config: Config): Promise<number> {
  const logger = commandLogger(config.logLevel);
  const db = await openConfiguredDatabase(config, logger, 'salary-api migrate');
  await db.close();
  console.log('database schema is up to date');
  return 0;
}

export async function loadCommand(config: Config, file: string, json: boolean): Promise<number> {
  const parsed = await readReleaseFile(file);
  const logger = commandLogger('warn');
  const db = await openConfiguredDatabase(config, logger, 'salary-api data load');
  try {
    const onEvent = webhookPublisher(resolvePlans(config.planOverrides), systemClock);
    const result = await createReleaseService({ db, clock: systemClock, onEvent }).load(parsed);
    // Running instances switch to it now rather than at their next poll.
    const changes = await openPublishingBus(config.redisUrl, config.redisKeyPrefix, logger);
    await changes.bus.publish('release');
    await changes.close();
    const summary = {
      release: result.release.version,
      records: result.release.recordCount,
      event: { id: result.eventId, type: 'data.updated', data: result.event },
    };
    console.log(
      json
        ? JSON.stringify(summary, null, 2)
        : `loaded release ${summary.release} (${summary.records} records); event ${result.eventId} data.updated recorded`,
    );
    return 0;
  } finally {
    await db.close();
  }
}

export async function statusCommand(config: Config, json: boolean): Promise<number> {
  const logger = commandLogger('warn');
  const db = await openConfiguredDatabase(config, logger, 'salary-api data status');
  try {
    const id = await createReleaseService({ db, clock: systemClock }).activeId();
    const rows = await db.query<{ version: string; loaded_at: Date; record_count: number }>(
      'SELECT version, loaded_at, record_count FROM data_releases WHERE id = $1',
      [id ?? 0],
    );
    const active = rows[0];
    const out =
      active === undefined
        ? { active: null }
        : {
            active: {
              version: active.version,
              loaded_at: new Date(active.loaded_at).toISOString(),
              records: active.record_count,
            },
          };
    console.log(
      json
        ? JSON.stringify(out)
        : active === undefined
          ? 'no release loaded'
          : `active release ${active.version}, ${active.record_count} records, loaded ${out.active?.loaded_at}`,
    );
    return 0;
  } finally {
    await db.close();
  }
}
