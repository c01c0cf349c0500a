import type { Logger } from '../lib/logger.js';
import { readReleaseFile, type ParsedRelease } from './parse.js';
import type { ReleaseService } from './service.js';
import { compareReleaseVersions } from './version.js';

/**
 * On first start (no release in the database yet) every bundled release is loaded, oldest first,
 * so the newest (the last of `files`) is active and the earlier ones stay queryable. Later starts
 * load the newest only when it is newer than the active release (a deployment that ships a new
 * release), which records its data.updated event; an older or equal bundled release is left
 * alone (a retired one does not come back), and an unreadable one leaves the active release
 * serving.
 */
export async function ensureRelease(
  releases: ReleaseService,
  files: string | readonly string[],
  logger: Logger,
): Promise<void> {
  const all = typeof files === 'string' ? [files] : files;
  const file = all.at(-1);
  if (file === undefined || (await releases.isActive(file))) return;
  const active = await releases.activeVersion();
  if (active === undefined) {
    for (const each of all) {
      const parsed = await readReleaseFile(each);
      const result = await loadUnlessRaced(releases, parsed);
      if (result === undefined) return;
      logger.info(
        { release: result.release.version, records: parsed.records.length, file: each },
        'bundled data release loaded',
      );
    }
    return;
  }
  let parsed: ParsedRelease;
  try {
    parsed = await readReleaseFile(file);
  } catch (error) {
    logger.warn({ err: error, file, active }, 'bundled data release not read; active release kept');
    return;
  }
  if (compareReleaseVersions(parsed.header.version, active) <= 0) return;
  const result = await loadUnlessRaced(releases, parsed);
  if (result === undefined) return;
  logger.info(
    { release: result.release.version, previous: active, event: result.eventId, file },
    'newer bundled data release loaded',
  );
}

/**
 * Loads the release; undefined when another instance starting at the same time (on an empty
 * database too, as `serve --workers N` and orchestrators start them) loaded it or a newer one
 * first: the version is unique, so the loser's insert fails and it serves the winner's.
 */
async function loadUnlessRaced(
  releases: ReleaseService,
  parsed: ParsedRelease,
): Promise<Awaited<ReturnType<ReleaseService['load']>> | undefined> {
  try {
    return await releases.load(parsed);
  } catch (error) {
    const now = await releases.activeVersion();
    if (now !== undefined && compareReleaseVersions(now, parsed.header.version) >= 0)
      return undefined;
    throw error;
  }
}
