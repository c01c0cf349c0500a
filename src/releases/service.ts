import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import type { Clock } from '../lib/clock.js';
import { prefixedId } from '../lib/ids.js';
import type { Db, Queryable } from '../store/index.js';
import type { ReleaseRecord } from './format.js';
import type { ParsedRelease } from './parse.js';
import { diffReleases } from './diff.js';
import * as repo from './repo.js';

export class ReleaseConflictError extends Error {
  constructor(readonly version: string) {
    super(`release ${version} is already loaded; give a new release a new version`);
    this.name = 'ReleaseConflictError';
  }
}

/** What a data.updated event says changed, compared with the release it replaces. */
export interface DataUpdatedEvent {
  release: string;
  previous_release: string | null;
  loaded_at: string;
  years: number[];
  countries: string[];
  jobs: string[];
  records: { total: number; added: number; changed: number; removed: number };
  /**
   * How far the cells moved from the previous release: how many changed cells' medians moved by
   * more than 1, 5 and 10 %, overall and per country, and where to read every change. Null for
   * the first release.
   */
  changes: {
    beyond: { '1': number; '5': number; '10': number };
    by_country: { country: string; changed: number; beyond_1: number; beyond_5: number; beyond_10: number }[];
    url: string;
  } | null;
}

/** Why a release cannot be retired: unknown, already retired, or the active one. */
export class ReleaseRetireError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReleaseRetireError';
  }
}

export interface LoadResult {
  release: repo.ReleaseRow;
  eventId: string;
  event: DataUpdatedEvent;
}

export interface ReleaseService {
  /** Writes a validated release in one transaction with its data.updated event. */
  load(parsed: ParsedRelease): Promise<LoadResult>;
  active(): Promise<{ release: repo.ReleaseRow; records: ReleaseRecord[] } | undefined>;
  activeId(): Promise<number | undefined>;
  /** Version of the active release (one row read), undefined before the first load. */
  activeVersion(): Promise<string | undefined>;
  /**
   * Dates every kept release's loading and its data.updated event now: a database unpacked from
   * a prepared image (made at build time) says when it came to be here.
   */
  restampKept(): Promise<void>;
  /** Whether `file` holds the active release (the same content), known without parsing it. */
  isActive(file: string): Promise<boolean>;
  /** The kept releases, newest loaded first (the first is the active one). */
  list(): Promise<repo.ReleaseRow[]>;
  /** The kept releases' ids, newest loaded first: one small query, for polling. */
  keptIds(): Promise<number[]>;
  /** A release by version, retired ones included. */
  byVersion(version: string): Promise<repo.ReleaseRow | undefined>;
  /** A kept release's records, in order (country, job, year, level). */
  records(release: repo.ReleaseRow): Promise<ReleaseRecord[]>;
  /** Retires a kept release other than the active one: its records are deleted, its row kept. */
  retire(version: string): Promise<repo.ReleaseRow>;
}

/** Called in the load transaction with the recorded event (the webhooks outbox fan-out). */
export type EventHook = (tx: Queryable, event: { id: string; type: string }) => Promise<unknown>;

export function createReleaseService(deps: {
  db: Db;
  clock: Clock;
  onEvent?: EventHook;
  /** Called in the load transaction with the data.updated event (the e-mail announcement). */
  announce?: (tx: Queryable, event: DataUpdatedEvent, at: Date) => Promise<unknown>;
}): ReleaseService {
  const { db, clock } = deps;
  return {
    async load(parsed) {
      return db.transaction(async (tx) => {
        if ((await repo.findReleaseByVersion(tx, parsed.header.version)) !== undefined) {
          throw new ReleaseConflictError(parsed.header.version);
        }
        const previous = await repo.findActiveRelease(tx);
        const previousRecords = previous === undefined ? [] : await repo.listRecords(tx, previous.id);
        const now = new Date(clock.now());
        const release = await repo.insertRelease(tx, parsed.header, parsed.checksum, now);
        await repo.insertRecords(tx, release.id, parsed.records);
        const moved =
          previous === undefined
            ? null
            : diffReleases(
                { release: previous, records: previousRecords },
                { release, records: parsed.records },
              ).summary;
        const event: DataUpdatedEvent = {
          release: release.version,
          previous_release: previous?.version ?? null,
          loaded_at: release.loadedAt,
          ...diffRecords(previousRecords, parsed.records),
          changes:
            moved === null
              ? null
              : {
                  beyond: moved.beyond,
                  by_country: moved.by_country.map(({ median_change_pct: _, ...c }) => c),
                  url: `/api/v1/releases/${release.version}/changes?from=${previous!.version}`,
                },
        };
        const eventId = prefixedId('evt');
        await repo.insertEvent(tx, { id: eventId, type: 'data.updated', createdAt: now, data: event });
        await deps.onEvent?.(tx, { id: eventId, type: 'data.updated' });
        await deps.announce?.(tx, event, now);
        return { release, eventId, event };
      });
    },
    async activeVersion() {
      return (await repo.findActiveRelease(db))?.version;
    },
    async active() {
      const release = await repo.findActiveRelease(db);
      if (release === undefined) return undefined;
      return { release, records: await repo.listRecords(db, release.id) };
    },
    activeId: () => repo.findActiveReleaseId(db),
    async isActive(file) {
      const active = await repo.findActiveRelease(db);
      if (active === undefined) return false;
      // Read at once (under 1 MB, once per start): a read through the thread pool waited
      // 0.3–0.4 s at start-up behind V8's background work on a 2-core machine.
      let raw: Buffer;
      try {
        raw = readFileSync(file);
      } catch {
        return false;
      }
      const text = raw[0] === 0x1f && raw[1] === 0x8b ? gunzipSync(raw) : raw;
      return createHash('sha256').update(text).digest('hex') === active.checksum;
    },
    list: () => repo.listKeptReleases(db),
    keptIds: () => repo.listKeptReleaseIds(db),
    byVersion: (version) => repo.findReleaseByVersion(db, version),
    records: (release) => repo.listRecords(db, release.id),
    async retire(version) {
      return db.transaction(async (tx) => {
        const release = await repo.findReleaseByVersion(tx, version);
        if (release === undefined) throw new ReleaseRetireError(`no release ${version} is loaded`);
        if (release.retiredAt !== null)
          throw new ReleaseRetireError(`release ${version} was retired at ${release.retiredAt}`);
        const active = await repo.findActiveRelease(tx);
        if (active?.id === release.id)
          throw new ReleaseRetireError(
            `release ${version} is the active release; load a newer one before retiring it`,
          );
        const at = new Date(clock.now());
        await repo.retireRelease(tx, release.id, at);
        return { ...release, retiredAt: at.toISOString() };
      });
    },
    async restampKept() {
      await db.transaction(async (tx) => {
        for (const release of await repo.listKeptReleases(tx))
          await repo.restampRelease(tx, release, new Date(clock.now()));
      });
    },
  };
}

const VALUE_FIELDS = ['basis', 'p10', 'p25', 'median', 'p75', 'p90', 'mean', 'local_currency', 'fx_rate'] as const;

function diffRecords(
  before: readonly ReleaseRecord[],
  after: readonly ReleaseRecord[],
): Omit<DataUpdatedEvent, 'release' | 'previous_release' | 'loaded_at' | 'changes'> {
  const key = (r: ReleaseRecord): string => `${r.country}|${r.job}|${r.level}|${r.year}`;
  const old = new Map(before.map((r) => [key(r), r]));
  const years = new Set<number>();
  const countries = new Set<string>();
  const jobs = new Set<string>();
  let added = 0;
  let changed = 0;
  for (const r of after) {
    const prior = old.get(key(r));
    old.delete(key(r));
    if (prior === undefined) added++;
    else if (VALUE_FIELDS.some((f) => prior[f] !== r[f])) changed++;
    else continue;
    years.add(r.year);
    countries.add(r.country);
    jobs.add(r.job);
  }
  for (const r of old.values()) {
    years.add(r.year);
    countries.add(r.country);
    jobs.add(r.job);
  }
  return {
    years: [...years].sort((a, b) => a - b),
    countries: [...countries].sort(),
    jobs: [...jobs].sort(),
    records: { total: after.length, added, changed, removed: old.size },
  };
}
