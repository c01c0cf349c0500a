import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { TestApp } from '../helpers/app.js';

export const csrfOf = (body: string): string =>
  /name="_csrf" value="([^"]+)"/.exec(body)?.[1] ?? '';

/** A browser's cookies and forms for in-process dashboard requests. */
export class DashboardClient {
  readonly cookies = new Map<string, string>();
  constructor(private readonly t: TestApp) {}

  #take(res: LightMyRequestResponse): LightMyRequestResponse {
    const header = res.headers['set-cookie'];
    for (const line of header === undefined ? [] : Array.isArray(header) ? header : [header]) {
      const pair = line.split(';')[0] ?? '';
      const eq = pair.indexOf('=');
      if (/Max-Age=0/.test(line)) this.cookies.delete(pair.slice(0, eq));
      else this.cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    return res;
  }

  #cookie(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async get(url: string): Promise<LightMyRequestResponse> {
    return this.#take(await this.t.app.inject({ url, headers: { cookie: this.#cookie() } }));
  }

  /** Posts a form with the CSRF token of `from` (a page's body) unless the fields carry one. */
  async post(url: string, fields: Record<string, string>, from?: string) {
    const payload = new URLSearchParams({
      ...(from === undefined ? {} : { _csrf: csrfOf(from) }),
      ...fields,
    }).toString();
    return this.#take(
      await this.t.app.inject({
        method: 'POST',
        url,
        headers: { cookie: this.#cookie(), 'content-type': 'application/x-www-form-urlencoded' },
        payload,
      }),
    );
  }

  async signIn(email: string, password = 'a long enough passphrase'): Promise<void> {
    const page = await this.get('/dashboard/sign-in');
    const res = await this.post('/dashboard/sign-in', { email, password }, page.body);
    assert.equal(res.statusCode, 303, res.body);
  }
}
