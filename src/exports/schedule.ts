import { Cron } from 'croner';

function cronOf(schedule: string, timezone: string): Cron {
  return new Cron(schedule, { timezone, paused: true, mode: '5-part' });
}

/** The shortest time between two runs of a schedule: an export runs at most hourly. */
export const MIN_SCHEDULE_INTERVAL_MS = 3_600_000;

/** Why a schedule or time zone is refused, or null when both are usable. */
export function scheduleProblem(schedule: string, timezone: string): string | null {
  try {
    new Intl.DateTimeFormat('en', { timeZone: timezone });
  } catch {
    return `${timezone} is not an IANA time zone`;
  }
  if (schedule.trim().split(/\s+/).length !== 5)
    return 'must be a 5-field cron expression (minute hour day-of-month month day-of-week)';
  try {
    if (cronOf(schedule, timezone).nextRun(new Date(0)) === null) return 'never occurs';
  } catch (error) {
    return (error as Error).message;
  }
  // One minute of the hour: two occurrences are at least an hour apart.
  if (!/^\d{1,2}$/.test(schedule.trim().split(/\s+/)[0] ?? ''))
    return 'runs more often than hourly: an export runs at most once an hour (the minimum interval is 1 hour), so the minute field must be a single minute, e.g. `0 * * * *` (hourly) or `0 6 * * 1` (Mondays 06:00)';
  return null;
}

/**
 * The next occurrence to queue after `occurrence`: the first at least the minimum interval
 * later (a schedule stored before the bound may name several minutes of an hour).
 */
export function followingOccurrence(schedule: string, timezone: string, occurrence: Date): Date {
  const earliest = new Date(occurrence.getTime() + MIN_SCHEDULE_INTERVAL_MS - 1);
  return nextOccurrence(schedule, timezone, earliest);
}

/** The first occurrence strictly after `after`, in the schedule's time zone (DST-aware). */
export function nextOccurrence(schedule: string, timezone: string, after: Date): Date {
  const next = cronOf(schedule, timezone).nextRun(after);
  if (next === null)
    throw new Error(`schedule ${schedule} has no occurrence after ${after.toISOString()}`);
  return next;
}

/**
 * The latest occurrence at or before `now`, and not before `due` (the first occurrence not
 * yet run): after downtime that spanned several occurrences only the latest runs (one catch-up).
 */
export function latestOccurrence(schedule: string, timezone: string, due: Date, now: Date): Date {
  const [back] = cronOf(schedule, timezone).previousRuns(1, new Date(now.getTime() + 1));
  return back !== undefined && back.getTime() > due.getTime() ? back : due;
}
