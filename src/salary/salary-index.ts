import { LEVELS } from '../catalog/index.js';
import type { ReleaseRecord, ReleaseRow } from '../releases/index.js';

const LEVEL_ORDER = new Map<string, number>(LEVELS.map((l, i) => [l, i]));

/**
 * The active release in memory, keyed for the lookups the API serves: no database round
 * trip on a request. Rebuilt whole when a new release becomes active.
 */
export class SalaryIndex {
  readonly release: ReleaseRow;
  readonly years: readonly number[];
  readonly #byCell = new Map<string, readonly ReleaseRecord[]>();

  constructor(release: ReleaseRow, records: readonly ReleaseRecord[]) {
    this.release = release;
    const cells = new Map<string, ReleaseRecord[]>();
    const years = new Set<number>();
    for (const record of records) {
      const key = cellKey(record.country, record.job, record.year);
      let list = cells.get(key);
      if (list === undefined) cells.set(key, (list = []));
      list.push(record);
      years.add(record.year);
    }
    for (const [key, list] of cells) {
      list.sort((a, b) => (LEVEL_ORDER.get(a.level) ?? 0) - (LEVEL_ORDER.get(b.level) ?? 0));
      this.#byCell.set(key, Object.freeze(list));
    }
    this.years = Object.freeze([...years].sort((a, b) => a - b));
  }

  get currentYear(): number {
    return this.release.currentYear;
  }

  /** Every level's record for one country, job and year, in level order. */
  cell(country: string, job: string, year: number): readonly ReleaseRecord[] {
    return this.#byCell.get(cellKey(country, job, year)) ?? [];
  }
}

function cellKey(country: string, job: string, year: number): string {
  return `${country}|${job}|${year}`;
}
