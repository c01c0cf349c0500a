// Runs in a worker thread of the render pool: turns a table into a file, off the main thread.
// Kept free of everything but the format writers, so a worker loads little.
import type { MessagePort } from 'node:worker_threads';
import { move } from 'piscina';
import { renderWhole, streamOf, useWriters } from './index.js';
import {
  decodeRows,
  decodeTable,
  type FromWorker,
  type RenderTask,
  type StreamTask,
  type ToWorker,
} from './render-pool.js';
import type { Column, Row } from './table.js';
import * as writers from './writers.js';

useWriters(writers);

export default async function render(task: RenderTask): Promise<ArrayBufferView> {
  const bytes = await renderWhole(task.format, decodeTable(task.table), task.name);
  // A buffer of its own (not a slice of Node's shared pool), handed over without a copy.
  const own = new Uint8Array(bytes.length);
  own.set(bytes);
  return move(own) as ArrayBufferView;
}

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

/** A streamed render (RenderPool.stream): the file's pieces go back on the task's port. */
export async function renderStream(task: StreamTask): Promise<void> {
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
