import { renderReport, type ReportDocument } from './report-pdf.js';
import { stampPdf } from './stamp.js';

export type PdfTask =
  { kind: 'stamp'; pdf: Uint8Array; text: string } | { kind: 'report'; report: ReportDocument };

/** Piscina's entry point: PDF work done off the main thread. */
export default async function run(task: PdfTask): Promise<Uint8Array> {
  return task.kind === 'stamp' ? stampPdf(task.pdf, task.text) : renderReport(task.report);
}
