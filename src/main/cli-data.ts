import type { Config } from '../config/index.js';
import { systemClock } from '../lib/clock.js';
import { resolvePlans } from '../plans/index.js';
import {
  createReleaseService,
  diffReleases,
  readReleaseFile,
  type ReleaseRow,
} from '../releases/index.js';
import { openPublishingBus } from '../store/index.js';
import { dataUpdateAnnouncer } from '../notices/index.js';
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
    const plans = resolvePlans(config.planOverrides);
    const result = await createReleaseService({
      db,
      clock: systemClock,
      onEvent: webhookPublisher(plans, systemClock),
      announce: dataUpdateAnnouncer(Object.values(plans)),
    }).load(parsed);
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
    const releases = createReleaseService({ db, clock: systemClock });
    const id = await releases.activeId();
    const active = (await releases.list()).find((r) => r.id === id);
    const out =
      active === undefined
        ? { active: null }
        : {
            active: {
              version: active.version,
              loaded_at: active.loadedAt,
              records: active.recordCount,
            },
          };
    console.log(
      json
        ? JSON.stringify(out)
        : active === undefined
          ? 'no release loaded'
          : `active release ${active.version}, ${active.recordCount} records, loaded ${active.loadedAt}`,
    );
    return 0;
  } finally {
    await db.close();
  }
}

/** A data command that cannot run as asked; the message says why (cli.ts prints it alone). */
class DataCommandError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DataCommandError';
  }
}

function describe(release: ReleaseRow, active: boolean): Record<string, unknown> {
  return {
    version: release.version,
    active,
    published_at: release.createdAt,
    loaded_at: release.loadedAt,
    records: release.recordCount,
  };
}

export async function listCommand(config: Config, json: boolean): Promise<number> {
  const db = await openConfiguredDatabase(config, commandLogger('warn'), 'salary-api data list');
  try {
    const kept = await createReleaseService({ db, clock: systemClock }).list();
    const rows = kept.map((r, i) => describe(r, i === 0));
    if (json) console.log(JSON.stringify({ releases: rows }, null, 2));
    else if (kept.length === 0) console.log('no release loaded');
    else
      for (const [i, r] of kept.entries())
        console.log(
          `${r.version}${i === 0 ? ' (active)' : ''}  published ${r.createdAt.slice(0, 10)}, loaded ${r.loadedAt}, ${r.recordCount} records`,
        );
    return 0;
  } finally {
    await db.close();
  }
}

export async function retireCommand(
  config: Config,
  version: string,
  json: boolean,
): Promise<number> {
  const logger = commandLogger('warn');
  const db = await openConfiguredDatabase(config, logger, 'salary-api data retire');
  try {
    const retired = await createReleaseService({ db, clock: systemClock }).retire(version);
    // Running instances drop what they hold of it now rather than at their next poll.
    const changes = await openPublishingBus(config.redisUrl, config.redisKeyPrefix, logger);
    await changes.bus.publish('release');
    await changes.close();
    console.log(
      json
        ? JSON.stringify({ retired: retired.version, retired_at: retired.retiredAt })
        : `retired release ${retired.version}; its records are deleted`,
    );
    return 0;
  } finally {
    await db.close();
  }
}

export async function diffCommand(
  config: Config,
  from: string,
  to: string,
  json: boolean,
): Promise<number> {
  const db = await openConfiguredDatabase(config, commandLogger('warn'), 'salary-api data diff');
  try {
    const releases = createReleaseService({ db, clock: systemClock });
    const pick = async (version: string) => {
      const release = await releases.byVersion(version);
      if (release === undefined || release.retiredAt !== null)
        throw new DataCommandError(`no kept release ${version}; see salary-api data list`);
      return { release, records: await releases.records(release) };
    };
    const a = await pick(from);
    const b = await pick(to);
    const diff = diffReleases(a, b);
    if (json) {
      console.log(
        JSON.stringify({ from, to, summary: diff.summary, reasons: diff.reasons }, null, 2),
      );
      return 0;
    }
    const s = diff.summary;
    console.log(`${from} → ${to}: ${s.cells} cells compared, ${s.changed} changed`);
    console.log(
      `moved beyond 1 %: ${s.beyond['1']}, beyond 5 %: ${s.beyond['5']}, beyond 10 %: ${s.beyond['10']}`,
    );
    for (const line of diff.reasons) console.log(`reason ${line.reason}: ${line.detail}`);
    console.log('\nper country (changed, beyond 5 %, median change %):');
    for (const c of s.by_country)
      console.log(`  ${c.country}  ${c.changed}  ${c.beyond_5}  ${c.median_change_pct}`);
    console.log('per job (changed, beyond 5 %, median change %):');
    for (const j of s.by_job)
      console.log(`  ${j.job.padEnd(24)} ${j.changed}  ${j.beyond_5}  ${j.median_change_pct}`);
    return 0;
  } finally {
    await db.close();
  }
}
