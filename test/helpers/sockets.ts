import { once } from 'node:events';
import { connect, type Socket } from 'node:net';

/** A raw TCP connection to an HTTP server's base URL, for requests written byte by byte. */
export async function openSocket(base: string): Promise<Socket> {
  const { hostname, port } = new URL(base);
  const socket = connect(Number(port), hostname);
  await once(socket, 'connect');
  return socket;
}

/** Reads from `socket` until `predicate` holds for what arrived; the bytes so far (latin1). */
export async function readUntil(
  socket: Socket,
  predicate: (text: string) => boolean,
): Promise<string> {
  let text = '';
  for (;;) {
    if (predicate(text)) return text;
    const [chunk] = (await once(socket, 'data')) as [Buffer];
    text += chunk.toString('latin1');
  }
}
