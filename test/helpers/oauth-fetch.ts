import type { FastifyInstance } from 'fastify';
import type * as oauth from 'oauth4webapi';

/**
 * oauth4webapi's `customFetch`, answered in-process by the app with `inject` (no listener; the
 * URLs are the configured issuer's, of which only the path and query are used).
 */
export function fetchVia(app: FastifyInstance) {
  return async (url: string, options: oauth.CustomFetchOptions<string, unknown>) => {
    const u = new URL(url);
    const body = options.body;
    const res = await app.inject({
      method: options.method as 'GET' | 'POST',
      url: u.pathname + u.search,
      headers: options.headers,
      ...(body === undefined || body === null
        ? {}
        : { payload: (body as URLSearchParams | string).toString() }),
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(res.headers))
      if (value !== undefined) headers.set(name, String(value));
    return new Response(res.statusCode === 204 ? null : res.rawPayload, {
      status: res.statusCode,
      headers,
    });
  };
}
