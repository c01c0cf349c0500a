import { TypeCompiler } from '@sinclair/typebox/compiler';
import { FormatRegistry } from '@sinclair/typebox';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import { COUNTRIES, currencyInYear } from '../catalog/index.js';
import { JOB_SLUGS, LEVELS } from '../catalog/index.js';
import {
  ReleaseHeaderSchema,
  ReleaseRecordSchema,
  type ReleaseHeader,
  type ReleaseRecord,
} from './format.js';

if (!FormatRegistry.Has('date-time')) {
  FormatRegistry.Set('date-time', (v) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(v) && !Number.isNaN(Date.parse(v)));
}

const headerCheck = TypeCompiler.Compile(ReleaseHeaderSchema);
const recordCheck = TypeCompiler.Compile(ReleaseRecordSchema);
const MAX_REPORTED = 50;

export interface ParsedRelease {
  header: ReleaseHeader;
  records: ReleaseRecord[];
  /** SHA-256 of the uncompressed file. */
  checksum: string;
}

/** A release file that failed validation; `problems` name the line and the field. */
export class ReleaseValidationError extends Error {
  constructor(
    readonly file: string,
    readonly problems: string[],
    readonly total: number,
  ) {
    const more = total > problems.length ? `\n  … and ${total - problems.length} more` : '';
    super(`${file}: ${total} problem(s)\n  ${problems.join('\n  ')}${more}`);
    this.name = 'ReleaseValidationError';
  }
}

export async function readReleaseFile(path: string): Promise<ParsedRelease> {
  let raw: Buffer;
  try {
    raw = await readFile(path);
  } catch (error) {
    throw new ReleaseValidationError(path, [`cannot read: ${(error as Error).message}`], 1);
  }
  let text: string;
  try {
    text = (raw[0] === 0x1f && raw[1] === 0x8b ? gunzipSync(raw) : raw).toString('utf8');
  } catch (error) {
    throw new ReleaseValidationError(path, [`not a valid gzip file: ${(error as Error).message}`], 1);
  }
  return parseRelease(text, path);
}

/** Validates a whole release (every line, then the grid) and reports every problem found. */
export function parseRelease(text: string, name = 'release'): ParsedRelease {
  const problems: string[] = [];
  let total = 0;
  const report = (line: number, message: string): void => {
    total++;
    if (problems.length < MAX_REPORTED) problems.push(`line ${line}: ${message}`);
  };
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();

  const header = parseLine(lines[0] ?? '', 1, report);
  if (header === undefined || !headerCheck.Check(header)) {
    if (header !== undefined) {
      for (const e of headerCheck.Errors(header)) report(1, `header ${fieldName(e.path)}: ${e.message}`);
    } else if (lines.length === 0) report(1, 'the file is empty');
    throw new ReleaseValidationError(name, problems, Math.max(total, 1));
  }
  checkHeader(header, report);

  const records: ReleaseRecord[] = [];
  const seen = new Set<string>();
  const countries = new Map(COUNTRIES.map((c) => [c.code, c]));
  for (let i = 1; i < lines.length; i++) {
    const lineNo = i + 1;
    const value = parseLine(lines[i] ?? '', lineNo, report);
    if (value === undefined) continue;
    if (!recordCheck.Check(value)) {
      for (const e of recordCheck.Errors(value)) report(lineNo, `field ${fieldName(e.path)}: ${e.message}`);
      continue;
    }
    const r = value;
    const country = countries.get(r.country);
    if (country === undefined) report(lineNo, `field "country": unknown country ${r.country}`);
    if (!JOB_SLUGS.includes(r.job)) report(lineNo, `field "job": unknown job ${r.job}`);
    if (!(LEVELS as readonly string[]).includes(r.level)) report(lineNo, `field "level": unknown level ${r.level}`);
    if (r.year < header.first_year || r.year > header.current_year) {
      report(lineNo, `field "year": ${r.year} is outside ${header.first_year}–${header.current_year}`);
    }
    if (!(r.p10 <= r.p25 && r.p25 <= r.median && r.median <= r.p75 && r.p75 <= r.p90)) {
      report(lineNo, 'fields p10…p90: percentiles must be in ascending order');
    }
    if (country !== undefined && r.local_currency !== currencyInYear(country, r.year)) {
      report(lineNo, `field "local_currency": ${r.country} used ${currencyInYear(country, r.year)} in ${r.year}, not ${r.local_currency}`);
    }
    if (r.local_currency === 'EUR' && r.fx_rate !== 1) report(lineNo, 'field "fx_rate": must be 1 for EUR');
    const key = `${r.country}|${r.job}|${r.level}|${r.year}`;
    if (seen.has(key)) report(lineNo, `duplicate record for ${key.replaceAll('|', ' ')}`);
    seen.add(key);
    records.push(r);
  }

  const years = header.current_year - header.first_year + 1;
  const expected = COUNTRIES.length * JOB_SLUGS.length * LEVELS.length * years;
  if (records.length !== header.record_count) {
    report(1, `header "record_count" says ${header.record_count}, the file has ${records.length} records`);
  }
  if (total === 0 && seen.size !== expected) {
    report(lines.length, `incomplete grid: ${seen.size} of ${expected} (country × job × level × year) records`);
  }
  if (total > 0) throw new ReleaseValidationError(name, problems, total);
  return { header, records, checksum: createHash('sha256').update(text).digest('hex') };
}

function parseLine(line: string, lineNo: number, report: (l: number, m: string) => void): unknown {
  try {
    return JSON.parse(line) as unknown;
  } catch {
    report(lineNo, 'not valid JSON');
    return undefined;
  }
}

function checkHeader(header: ReleaseHeader, report: (l: number, m: string) => void): void {
  if (header.first_year > header.current_year) report(1, 'header "first_year" is after "current_year"');
  const sameKeys = (got: string[], want: readonly string[]): boolean =>
    got.length === want.length && want.every((k) => got.includes(k));
  const sum = (w: Record<string, number>): number => Object.values(w).reduce((a, b) => a + b, 0);
  if (!sameKeys(Object.keys(header.job_weights), JOB_SLUGS)) {
    report(1, `header "job_weights" must have exactly the jobs ${JOB_SLUGS.join(', ')}`);
  } else if (Math.abs(sum(header.job_weights) - 1) > 1e-6) report(1, 'header "job_weights" must sum to 1');
  for (const [country, weights] of Object.entries(header.country_job_weights ?? {})) {
    const field = `header "country_job_weights.${country}"`;
    if (!sameKeys(Object.keys(weights), JOB_SLUGS)) {
      report(1, `${field} must have exactly the jobs ${JOB_SLUGS.join(', ')}`);
    } else if (Math.abs(sum(weights) - 1) > 1e-6) report(1, `${field} must sum to 1`);
  }
  if (!sameKeys(Object.keys(header.level_weights), LEVELS)) {
    report(1, `header "level_weights" must have exactly the levels ${LEVELS.join(', ')}`);
  } else if (Math.abs(sum(header.level_weights) - 1) > 1e-6) report(1, 'header "level_weights" must sum to 1');
}

function fieldName(path: string): string {
  return `"${path.replace(/^\//, '').replaceAll('/', '.') || '(root)'}"`;
}
