// Runs in a worker thread of the render pool: turns a table into a file, off the main thread.
// Kept free of everything but the format writers, so a worker loads little; each format's
// writer is loaded on its first use (streamOf).
import type { MessagePort } from 'node:worker_threads';
import { streamOf } from './index.js';
import { decodeRows, type FromWorker, type StreamTask, type ToWorker } from './render-pool.js';
import type { Column, Row } from './table.js';

/** The rows the main thread sends, asked for one chunk at a time. */
async function* rowsFrom(port: MessagePort, columns: readonly Column[]): AsyncGenerator<Row[]> {
  const inbox: ToWorker[] = [];
  let waiting: (() => void) | null = null;
  port.on('message', (message: ToWorker) => {
    inbox.push(message);
    waiting?.();
  });
  port.on('close', () => {
    inbox.push({ abort: 'the reader went away' });
    waiting?.();
  });
  for (;;) {
    port.postMessage({ need: true } satisfies FromWorker);
    while (inbox.length === 0) await new Promise<void>((resolve) => (waiting = resolve));
    waiting = null;
    const message = inbox.shift()!;
    if ('end' in message) return;
    if ('abort' in message) throw new Error(`render stopped: ${message.abort}`);
    yield decodeRows(columns, message.rows);
  }
}

/** A render (RenderPool.stream): the rows come, and the file's pieces go back, on the task's port. */
export default async function renderStream(task: StreamTask): Promise<void> {
  const { port } = task;
  try {
    const table = {
      rowName: task.rowName,
      columns: task.columns,
      chunks: rowsFrom(port, task.columns),
    };
    for await (const piece of await streamOf(task.format, table, task.name)) {
      const own = new Uint8Array(Buffer.byteLength(piece as Uint8Array | string));
      own.set(typeof piece === 'string' ? Buffer.from(piece) : (piece as Uint8Array));
      port.postMessage({ bytes: own } satisfies FromWorker, [own.buffer]);
    }
    port.postMessage({ done: true } satisfies FromWorker);
  } finally {
    port.close();
  }
}
