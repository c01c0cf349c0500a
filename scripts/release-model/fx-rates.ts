import { readCsv, text } from './csv.js';

/**
 * ECB euro reference rates (units per EUR), averaged per calendar year (docs/data.md §8):
 *
 * - a finished year: the mean of its daily fixings;
 * - the current year: the mean of the daily fixings to the last date the file holds, stated;
 * - a year after the last one covered: the last year's average, stated as such.
 */

export const FX_DAILY_FILE = 'ecb_eurofxref_hist_2014_2026';

export interface FxYear {
  readonly rate: number;
  /** Fixings the average is made of. */
  readonly fixings: number;
  /** Last date (YYYY-MM-DD) the average covers. */
  readonly lastCovered: string;
  /** Whether the average covers the whole calendar year. */
  readonly complete: boolean;
  /** The year whose average is used when this year has no rate of its own. */
  readonly from: number;
}

export interface FxTable {
  /** currency → year → annual average. */
  readonly years: ReadonlyMap<string, ReadonlyMap<number, FxYear>>;
  readonly rate: (currency: string, year: number) => number;
}

const CURRENCIES = ['BGN', 'CZK', 'DKK', 'HRK', 'HUF', 'PLN', 'RON', 'SEK'] as const;

/** A year is complete when its fixings run to the last working days of December. */
const COMPLETE_FROM_DAY = '12-28';

export function loadFx(dir: string, lastYear: number): FxTable {
  const daily = readCsv(dir, `${FX_DAILY_FILE}.csv`);
  const sums = new Map<string, Map<number, { sum: number; n: number; last: string }>>();
  const add = (cur: string, year: number, value: number, date: string) => {
    const byYear = sums.get(cur) ?? new Map<number, { sum: number; n: number; last: string }>();
    const s = byYear.get(year) ?? { sum: 0, n: 0, last: '' };
    byYear.set(year, {
      sum: s.sum + value,
      n: s.n + 1,
      last: date > s.last ? date : s.last,
    });
    sums.set(cur, byYear);
  };
  for (const row of daily) {
    const date = text(row, 'date');
    for (const cur of CURRENCIES) {
      const raw = text(row, cur);
      if (raw === 'N/A' || raw === '') continue;
      add(cur, Number(date.slice(0, 4)), Number(raw), date);
    }
  }
  const years = new Map<string, Map<number, FxYear>>();
  for (const [cur, byYear] of sums) {
    const out = new Map<number, FxYear>();
    for (const [year, s] of [...byYear].sort((a, b) => a[0] - b[0])) {
      out.set(year, {
        rate: s.sum / s.n,
        fixings: s.n,
        lastCovered: s.last,
        complete: s.last.slice(5) >= COMPLETE_FROM_DAY,
        from: year,
      });
    }
    const known = [...out.keys()];
    const latest = Math.max(...known);
    for (let y = latest + 1; y <= lastYear; y++) {
      const prev = out.get(latest);
      if (prev) out.set(y, { ...prev, from: latest });
    }
    years.set(cur, out);
  }
  const rate = (currency: string, year: number) => {
    const r = years.get(currency)?.get(year)?.rate;
    if (r === undefined) throw new Error(`ECB: no ${currency} rate for ${year}`);
    return r;
  };
  return { years, rate };
}
