/** A response body ready to send. */
export interface CachedFile {
  readonly body: Buffer;
  readonly contentType: string;
  /** Sent as an attachment under this name; null for JSON. */
  readonly filename: string | null;
}

/** Bytes of files kept per process; the full archive in all four file formats is about 25 MB. */
export const FILE_CACHE_BYTES = 64 * 1024 * 1024;

interface Entry {
  readonly file: Promise<CachedFile>;
  /** Set once the file is generated. */
  size?: number;
}

/**
 * Large files of the active release, generated once and then served from memory: the same
 * request of the same release gives the same bytes, whoever asks. A request for a file being
 * generated waits for that generation instead of starting another. The least recently used
 * files leave first when the bytes exceed the bound; a new release drops every file of the old.
 */
export class FileCache {
  #release: object | undefined;
  /** In use order: a hit moves its entry to the end. */
  readonly #entries = new Map<string, Entry>();
  #bytes = 0;

  constructor(private readonly maxBytes = FILE_CACHE_BYTES) {}

  /** Bytes held now, for tests and diagnostics. */
  get bytes(): number {
    return this.#bytes;
  }

  get(release: object, key: string): Promise<CachedFile> | undefined {
    if (release !== this.#release) return undefined;
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.file;
  }

  /**
   * The file under this key, generating it with `generate` unless it is cached or being
   * generated. A failed generation is forgotten, so the next request tries again.
   */
  getOrAdd(release: object, key: string, generate: () => Promise<CachedFile>): Promise<CachedFile> {
    const existing = this.get(release, key);
    if (existing !== undefined) return existing;
    if (release !== this.#release) {
      this.#release = release;
      this.#entries.clear();
      this.#bytes = 0;
    }
    const entry: Entry = { file: generate() };
    this.#entries.set(key, entry);
    entry.file.then(
      (done) => this.#settled(key, entry, done.body.length),
      () => {
        if (this.#entries.get(key) === entry) this.#entries.delete(key);
      },
    );
    return entry.file;
  }

  #settled(key: string, entry: Entry, size: number): void {
    if (this.#entries.get(key) !== entry) return;
    if (size > this.maxBytes / 2) {
      // Too large to keep without pushing out everything else: served to its waiters, dropped.
      this.#entries.delete(key);
      return;
    }
    entry.size = size;
    this.#bytes += size;
    for (const [oldKey, old] of this.#entries) {
      if (this.#bytes <= this.maxBytes) break;
      if (old.size === undefined) continue;
      this.#entries.delete(oldKey);
      this.#bytes -= old.size;
    }
  }
}
