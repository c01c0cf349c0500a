import type { TestApp } from './app.js';

export interface HttpResult {
  status: number;
  headers: Headers;
  body: string;
  /** The body parsed as JSON (throws when it is not). */
  json(): any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export type HttpCall = (
  method: string,
  path: string,
  options?: { token?: string; body?: unknown; headers?: Record<string, string> },
) => Promise<HttpResult>;

/**
 * Listens on a free loopback port and returns a client that sends real HTTP requests, so a test
 * sees what a remote caller sees (the raw URL, the router's decoding, the node:http server).
 */
export async function listenHttp(t: TestApp): Promise<{ base: string; call: HttpCall }> {
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const address = t.app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  const base = `http://127.0.0.1:${address.port}`;
  const call: HttpCall = async (method, path, options = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
    let body: string | undefined;
    if (options.body !== undefined) {
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(base + path, { method, headers, body });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text, json: () => JSON.parse(text) };
  };
  return { base, call };
}
