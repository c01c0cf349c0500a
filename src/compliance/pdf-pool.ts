import { Piscina } from 'piscina';
import type { PdfTask } from './pdf-worker.js';
import type { ReportDocument } from './report-pdf.js';

/** Worker threads stay up this long without work, then exit. */
const IDLE_MS = 30_000;

/**
 * Stamping a PDF (parse, draw on every page, write out again) and laying out a report take
 * from milliseconds to seconds of CPU for a long document: they run in worker threads so the
 * main thread keeps serving. The document travels as bytes, transferred without a copy.
 */
export class PdfPool {
  readonly #pool: Piscina<PdfTask, Uint8Array>;

  constructor(threads = 1) {
    // The worker is a sibling module: .ts under the test loader, .js once built.
    const extension = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
    this.#pool = new Piscina({
      filename: new URL(`./pdf-worker${extension}`, import.meta.url).href,
      minThreads: 0,
      maxThreads: threads,
      idleTimeout: IDLE_MS,
    });
  }

  async stamp(original: Uint8Array, text: string): Promise<Buffer> {
    // A copy of its own: the bytes may be a slice of a shared buffer, which must not move.
    const pdf = new Uint8Array(original);
    const out = await this.#pool.run({ kind: 'stamp', pdf, text } satisfies PdfTask, {
      transferList: [pdf.buffer],
    });
    return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
  }

  async report(report: ReportDocument): Promise<Buffer> {
    const out = await this.#pool.run({ kind: 'report', report } satisfies PdfTask);
    return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
  }

  close(): Promise<void> {
    return this.#pool.destroy();
  }
}
