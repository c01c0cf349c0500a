// Runs in a worker thread of the render pool: turns a table into a whole file, off the main
// thread. Kept free of everything but the format writers, so a worker loads little.
import { move } from 'piscina';
import { renderWhole } from './index.js';
import { decodeTable, type RenderTask } from './render-pool.js';

export default async function render(task: RenderTask): Promise<ArrayBufferView> {
  const bytes = await renderWhole(task.format, decodeTable(task.table), task.name);
  // A buffer of its own (not a slice of Node's shared pool), handed over without a copy.
  const own = new Uint8Array(bytes.length);
  own.set(bytes);
  return move(own) as ArrayBufferView;
}
