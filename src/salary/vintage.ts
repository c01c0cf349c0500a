import { AppError } from '../errors/index.js';
import type { ReleaseRow } from '../releases/index.js';

const DAY_MS = 86_400_000;

/**
 * The kept release a query names: by version (`release`), or the release in effect on a date
 * (`as_of`): the newest kept release published on or before that day (UTC). `kept` is newest
 * loaded first. Unknown or retired versions and dates before every kept release are 400 and 404
 * problems that name what is kept.
 */
export function pickRelease(
  kept: readonly ReleaseRow[],
  version: string | undefined,
  asOf: string | undefined,
): ReleaseRow {
  const versions = kept.map((r) => r.version);
  if (version !== undefined && asOf !== undefined) {
    throw AppError.invalidParams([
      { name: 'as_of', reason: 'give either release or as_of, not both' },
    ]);
  }
  if (version !== undefined) {
    const release = kept.find((r) => r.version === version);
    if (release === undefined) {
      throw AppError.invalidParams([
        {
          name: 'release',
          reason: `${version} is not a kept data release (GET /api/v1/releases lists them)`,
          allowed: versions,
        },
      ]);
    }
    return release;
  }
  const day = Date.parse(`${asOf}T00:00:00Z`);
  if (Number.isNaN(day)) {
    throw AppError.invalidParams([{ name: 'as_of', reason: `${asOf} is not a date (YYYY-MM-DD)` }]);
  }
  const inEffect = kept
    .filter((r) => Date.parse(r.createdAt) < day + DAY_MS)
    .sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt) || b.id - a.id)[0];
  if (inEffect === undefined) {
    const earliest = kept.map((r) => r.createdAt.slice(0, 10)).sort()[0];
    throw new AppError(
      'NO_DATA',
      `No kept data release was published by ${asOf}; the earliest kept one was published on ${earliest}.`,
      { extensions: { releases: versions } },
    );
  }
  return inEffect;
}
