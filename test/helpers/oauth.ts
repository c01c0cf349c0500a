import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import * as oauthLib from 'oauth4webapi';
import type * as oauth from 'oauth4webapi';
import type { TestApp } from './app.js';

/**
 * oauth4webapi's `customFetch`, answered in-process by the app with `inject` (no listener; the
 * URLs are the configured issuer's, of which only the path and query are used).
 */
function fetchVia(app: FastifyInstance) {
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

/** An HTTP Basic Authorization header value for client credentials. */
export function basicAuth(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
}

export interface CreatedClient {
  client_id: string;
  client_secret: string;
}

/**
 * An OAuth client made with `credential` (a session or key) through the API; asserts that it is
 * created (201). `C` is the part of the answer the caller reads.
 */
export async function createClient<C extends CreatedClient = CreatedClient>(
  t: TestApp,
  credential: string,
  body: Record<string, unknown>,
): Promise<C> {
  const created = await t.app.inject({
    method: 'POST',
    url: '/api/v1/oauth/clients',
    headers: { authorization: `Bearer ${credential}` },
    payload: body,
  });
  assert.equal(created.statusCode, 201, created.body);
  return created.json<C>();
}

/**
 * A client_secret_basic client made with `credential` (a session or key) through the API, and
 * one access token of it from the token endpoint; asserts that both are answered (201, 200).
 */
export async function clientAndToken(
  t: TestApp,
  credential: string,
  body: Record<string, unknown>,
): Promise<{ client: CreatedClient; accessToken: string }> {
  const client = await createClient(t, credential, body);
  const issued = await t.app.inject({
    method: 'POST',
    url: '/oauth/token',
    headers: {
      authorization: basicAuth(client.client_id, client.client_secret),
      'content-type': 'application/x-www-form-urlencoded',
    },
    payload: 'grant_type=client_credentials',
  });
  assert.equal(issued.statusCode, 200, issued.body);
  return { client, accessToken: issued.json<{ access_token: string }>().access_token };
}

/**
 * oauth4webapi's view of the app as authorization server `issuer`, discovered from its
 * metadata, and the options that route the library's requests to the app in-process.
 */
export async function discoverVia(
  app: FastifyInstance,
  issuer: string,
): Promise<{ as: oauth.AuthorizationServer; opts: Record<symbol, unknown> }> {
  const opts = { [oauthLib.customFetch]: fetchVia(app) };
  const url = new URL(issuer);
  const as = await oauthLib.processDiscoveryResponse(
    url,
    await oauthLib.discoveryRequest(url, { ...opts, algorithm: 'oauth2' }),
  );
  return { as, opts };
}
