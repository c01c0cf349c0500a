import { readdirSync } from 'node:fs';
import { COUNTRIES } from '../../src/catalog/countries.js';
import { num, readCsv, text } from './csv.js';

/**
 * Statutory minimum wages, annualised to the release's full-time year (docs/data.md §7).
 *
 * Two kinds of source: each country's own legal amounts with the date each took effect
 * (`<cc>_minimum_wage_2014_2026.csv`), and Eurostat's earn_mw_cur, the monthly amount in force
 * on 1 January and 1 July of every year in national currency (already spread over 12 months
 * where more payments are made, and converted from hourly or weekly rates by Eurostat).
 *
 *   monthly equivalent = amount × payments a year / 12        (a monthly amount: 14 in ES, GR, PT)
 *                      = amount × 52.1786 / 12                (a weekly amount: MT)
 *                      = amount × hours a week × 52.1786 / 12 (an hourly amount: DE, FR, IE, NL)
 *
 * where the hours of an hourly rate are those the country's file states (FR 35), or else the
 * hours implied by Eurostat's monthly amount for the same rate; likewise a monthly amount whose
 * payments a year the file does not state takes the number Eurostat's amount implies. A month takes the latest amount
 * in force on its first day; the national amounts come first, and a Eurostat amount fills in
 * where it differs by more than 2 % from the national one then in force (a change the national
 * file lacks). The annual floor is the sum over the 12 months. Only the general adult rate
 * counts (`rate` = `general`); a `none` row means no statutory minimum from that date.
 */

export const EUROSTAT_MW_FILE = 'eurostat_earn_mw_cur_2014_2026';
const NATIONAL_FILE = /^([a-z]{2})_minimum_wage_\d{4}_\d{4}$/;
export const WEEKS_PER_YEAR = 365.25 / 7;
/** A Eurostat amount within this of the national amount in force is the same rate. */
export const SAME_RATE = 0.02;

export interface MinimumWagePoint {
  readonly country: string;
  /** YYYY-MM-DD from which the amount is in force. */
  readonly from: string;
  /** Monthly full-time equivalent in the amount's currency; 0 when no minimum is in force. */
  readonly monthly: number;
  readonly currency: string;
  readonly source: string;
  /** How the amount was made monthly, for the documentation. */
  readonly how: string;
}

export interface MinimumWages {
  /** ISO → year → annual full-time minimum wage in the model's currency. */
  readonly annual: ReadonlyMap<string, ReadonlyMap<number, number>>;
  /** ISO → the timeline of amounts used. */
  readonly timeline: ReadonlyMap<string, readonly MinimumWagePoint[]>;
}

interface EurostatPoint {
  readonly from: string;
  readonly monthly: number;
}

function loadEurostat(dir: string): Map<string, EurostatPoint[]> {
  const out = new Map<string, EurostatPoint[]>();
  for (const r of readCsv(dir, `${EUROSTAT_MW_FILE}.csv`)) {
    if (text(r, 'currency') !== 'NAC' || text(r, 'value') === '') continue;
    const iso = text(r, 'country');
    out.set(iso, [
      ...(out.get(iso) ?? []),
      { from: text(r, 'ref_date'), monthly: num(r, 'value') },
    ]);
  }
  for (const points of out.values()) points.sort((a, b) => a.from.localeCompare(b.from));
  return out;
}

/** Currency Eurostat states a country's NAC amounts in: the euro for the euro area of 2026. */
function eurostatCurrency(iso: string): string {
  const c = COUNTRIES.find((x) => x.code === iso);
  const now = c?.currencies.at(-1)?.currency;
  return now ?? 'EUR';
}

function nationalPoints(
  dir: string,
  file: string,
  iso: string,
  eurostat: readonly EurostatPoint[],
): MinimumWagePoint[] {
  const id = file.replace(/\.csv$/, '');
  const points: MinimumWagePoint[] = [];
  for (const r of readCsv(dir, file)) {
    if (text(r, 'country') !== iso) throw new Error(`${file}: row for ${text(r, 'country')}`);
    const rate = text(r, 'rate');
    const from = text(r, 'effective_from');
    if (rate === 'none') {
      points.push({ country: iso, from, monthly: 0, currency: '', source: id, how: 'none' });
      continue;
    }
    if (rate !== 'general') continue;
    const amount = num(r, 'amount');
    const currency = text(r, 'currency');
    const period = text(r, 'period');
    let monthly: number;
    let how: string;
    if (period === 'month') {
      // Payments a year as the file states them, or as Eurostat's 12-month amount implies.
      const stated = text(r, 'payments_per_year');
      const e = eurostat.find((p) => p.from >= from);
      const payments =
        stated !== '' ? Number(stated) : e ? Math.round((12 * e.monthly) / amount) : NaN;
      if (!Number.isFinite(payments))
        throw new Error(`${file}: payments a year unknown for ${from}`);
      monthly = (amount * payments) / 12;
      how = payments === 12 ? 'monthly' : `monthly × ${payments} / 12`;
    } else if (period === 'week') {
      monthly = (amount * WEEKS_PER_YEAR) / 12;
      how = 'weekly × 52.18 / 12';
    } else if (period === 'hour') {
      const stated = text(r, 'hours_per_week');
      let hours = stated === '' ? NaN : Number(stated);
      let basis = 'hours stated';
      if (!Number.isFinite(hours)) {
        // Eurostat's monthly amount for the same rate: the first semester date it is in force.
        const e = eurostat.find((p) => p.from >= from);
        if (!e)
          throw new Error(`${file}: no Eurostat amount to convert the hourly rate of ${from}`);
        hours = e.monthly / ((amount * WEEKS_PER_YEAR) / 12);
        basis = `hours implied by Eurostat (${hours.toFixed(2)} a week)`;
      }
      monthly = (amount * hours * WEEKS_PER_YEAR) / 12;
      how = `hourly × ${hours.toFixed(2)} h × 52.18 / 12 (${basis})`;
    } else throw new Error(`${file}: period "${period}"`);
    points.push({ country: iso, from, monthly, currency, source: id, how });
  }
  return points.sort((a, b) => a.from.localeCompare(b.from));
}

export function loadMinimumWages(
  dir: string,
  years: readonly number[],
  toModel: (country: string, currency: string, year: number) => number,
): MinimumWages {
  const eurostat = loadEurostat(dir);
  const national = new Map<string, MinimumWagePoint[]>();
  for (const file of readdirSync(dir).sort()) {
    const m = NATIONAL_FILE.exec(file.replace(/\.csv$/, ''));
    if (!m || !file.endsWith('.csv')) continue;
    const iso = (m[1] ?? '').toUpperCase();
    national.set(iso, nationalPoints(dir, file, iso, eurostat.get(iso) ?? []));
  }
  const annual = new Map<string, Map<number, number>>();
  const timeline = new Map<string, MinimumWagePoint[]>();
  for (const c of COUNTRIES) {
    const own = national.get(c.code) ?? [];
    const inForce = (day: string, pts: readonly MinimumWagePoint[]) =>
      pts.filter((p) => p.from <= day).at(-1);
    const modelOf = (p: MinimumWagePoint, day: string) =>
      p.monthly === 0 ? 0 : p.monthly * toModel(c.code, p.currency, Number(day.slice(0, 4)));
    const fills: MinimumWagePoint[] = [];
    const eCurrency = eurostatCurrency(c.code);
    for (const e of eurostat.get(c.code) ?? []) {
      const n = inForce(e.from, own);
      const eModel = e.monthly * toModel(c.code, eCurrency, Number(e.from.slice(0, 4)));
      if (n && n.monthly > 0 && Math.abs(modelOf(n, e.from) / eModel - 1) <= SAME_RATE) continue;
      if (n && n.from === e.from) continue;
      fills.push({
        country: c.code,
        from: e.from,
        monthly: e.monthly,
        currency: eCurrency,
        source: EUROSTAT_MW_FILE,
        how: 'Eurostat monthly amount',
      });
    }
    const points = [...own, ...fills].sort(
      (a, b) => a.from.localeCompare(b.from) || (a.source === EUROSTAT_MW_FILE ? 1 : -1),
    );
    if (points.length === 0) continue;
    timeline.set(c.code, points);
    const byYear = new Map<number, number>();
    for (const y of years) {
      let sum = 0;
      let months = 0;
      for (let month = 1; month <= 12; month++) {
        const day = `${y}-${String(month).padStart(2, '0')}-01`;
        const p = inForce(day, points);
        if (!p) continue;
        sum += modelOf(p, day);
        months++;
      }
      if (months === 12 && sum > 0) byYear.set(y, sum);
    }
    annual.set(c.code, byYear);
  }
  return { annual, timeline };
}
