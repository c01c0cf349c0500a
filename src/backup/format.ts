import { createHash } from 'node:crypto';

/**
 * A backup file: one header line naming the format, one line of JSON manifest, then the
 * payload (PGlite's data directory as a gzipped tarball). The manifest carries the payload's
 * length and SHA-256, so a truncated or altered file is recognised before anything is touched.
 */
const MAGIC = 'salary-api-backup 1\n';

export interface Manifest {
  readonly createdAt: string;
  /** The active data release's version when the snapshot was taken, if any. */
  readonly release: string | null;
  /** The highest migration applied to the snapshot's database. */
  readonly migration: number;
  readonly bytes: number;
  readonly sha256: string;
}

export class BackupFormatError extends Error {
  constructor(file: string, why: string) {
    super(`${file} is not a usable backup: ${why}. Nothing was changed.`);
    this.name = 'BackupFormatError';
  }
}

export function encodeBackup(
  payload: Uint8Array,
  info: Omit<Manifest, 'bytes' | 'sha256'>,
): { bytes: Buffer; manifest: Manifest } {
  const manifest: Manifest = {
    ...info,
    bytes: payload.byteLength,
    sha256: createHash('sha256').update(payload).digest('hex'),
  };
  const head = Buffer.from(`${MAGIC}${JSON.stringify(manifest)}\n`, 'utf8');
  return { bytes: Buffer.concat([head, payload]), manifest };
}

/** The manifest and payload of a backup file's bytes; throws BackupFormatError when unusable. */
export function decodeBackup(file: string, bytes: Buffer): { manifest: Manifest; payload: Buffer } {
  if (!bytes.subarray(0, MAGIC.length).equals(Buffer.from(MAGIC)))
    throw new BackupFormatError(file, 'it does not start with a salary-api backup header');
  const end = bytes.indexOf(0x0a, MAGIC.length);
  if (end === -1) throw new BackupFormatError(file, 'its manifest is cut off');
  let manifest: Manifest;
  try {
    manifest = JSON.parse(bytes.subarray(MAGIC.length, end).toString('utf8')) as Manifest;
  } catch {
    throw new BackupFormatError(file, 'its manifest is not valid JSON');
  }
  if (!Number.isInteger(manifest.migration) || !Number.isInteger(manifest.bytes))
    throw new BackupFormatError(file, 'its manifest lacks the migration level or size');
  const payload = bytes.subarray(end + 1);
  if (payload.byteLength !== manifest.bytes)
    throw new BackupFormatError(
      file,
      `it holds ${payload.byteLength} bytes of data where its manifest says ${manifest.bytes} (truncated or altered)`,
    );
  const sha256 = createHash('sha256').update(payload).digest('hex');
  if (sha256 !== manifest.sha256)
    throw new BackupFormatError(
      file,
      'its SHA-256 does not match its manifest (altered or damaged)',
    );
  return { manifest, payload };
}
