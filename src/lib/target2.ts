/**
 * The TARGET2 calendar: the days SEPA payments settle. Closed on Saturdays and Sundays,
 * 1 January, Good Friday, Easter Monday, 1 May, 25 and 26 December. Days are ISO dates
 * (YYYY-MM-DD) in UTC.
 */

/** Easter Sunday of `year` in the Gregorian calendar (the anonymous Gregorian algorithm). */
export function easterSunday(year: number): string {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

const DAY_MS = 86_400_000;
const iso = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
const ms = (day: string): number => Date.parse(`${day}T00:00:00Z`);

export function isTarget2Day(day: string): boolean {
  const weekday = new Date(ms(day)).getUTCDay();
  if (weekday === 0 || weekday === 6) return false;
  const md = day.slice(5);
  if (md === '01-01' || md === '05-01' || md === '12-25' || md === '12-26') return false;
  const easter = ms(easterSunday(Number(day.slice(0, 4))));
  return day !== iso(easter - 2 * DAY_MS) && day !== iso(easter + DAY_MS);
}

/** The first TARGET2 day on or after `day`. */
export function target2OnOrAfter(day: string): string {
  let t = ms(day);
  while (!isTarget2Day(iso(t))) t += DAY_MS;
  return iso(t);
}

/** The TARGET2 day `n` TARGET2 days after `day` (which need not be one). */
export function addTarget2Days(day: string, n: number): string {
  let t = ms(day);
  for (let left = n; left > 0;) {
    t += DAY_MS;
    if (isTarget2Day(iso(t))) left--;
  }
  return iso(t);
}
