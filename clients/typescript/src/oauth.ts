/** OAuth 2.0 client credentials (Enterprise): the token endpoint and the client's secret. */
export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
  /** Default: `<baseUrl>/oauth/token`. */
  tokenUrl?: string;
  /** Space-separated scopes to ask for; the client's own when omitted. */
  scope?: string;
  /** A token is renewed this long before it expires (default 30 s). */
  refreshBeforeMs?: number;
  /** The time (tests pass their clock's). */
  now?: () => number;
}

interface Token {
  value: string;
  renewAt: number;
}

/** Fetches an access token with client_secret_basic, keeps it, and renews it before it expires. */
export class TokenSource {
  #token: Token | undefined;
  #pending: Promise<Token> | undefined;
  readonly #now: () => number;

  constructor(
    private readonly credentials: ClientCredentials & { tokenUrl: string },
    private readonly fetcher: typeof fetch,
  ) {
    this.#now = credentials.now ?? Date.now;
  }

  /** A valid access token: the kept one, or a new one. */
  async token(): Promise<string> {
    if (this.#token !== undefined && this.#now() < this.#token.renewAt) return this.#token.value;
    this.#pending ??= this.#fetch().finally(() => (this.#pending = undefined));
    this.#token = await this.#pending;
    return this.#token.value;
  }

  /** Forgets the kept token (the API refused it): the next call fetches a new one. */
  invalidate(): void {
    this.#token = undefined;
  }

  async #fetch(): Promise<Token> {
    const { clientId, clientSecret, tokenUrl, scope } = this.credentials;
    const body = new URLSearchParams({ grant_type: 'client_credentials' });
    if (scope !== undefined) body.set('scope', scope);
    const basic = btoa(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`);
    const response = await this.fetcher(tokenUrl, {
      method: 'POST',
      headers: {
        authorization: `Basic ${basic}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body,
    });
    const answer = (await response.json()) as {
      access_token?: string;
      expires_in?: number;
      error?: string;
      error_description?: string;
    };
    if (!response.ok || answer.access_token === undefined)
      throw new Error(
        `OAuth token request failed: ${answer.error ?? response.status} ${answer.error_description ?? ''}`.trim(),
      );
    const lifetime = (answer.expires_in ?? 300) * 1000;
    const early = Math.min(this.credentials.refreshBeforeMs ?? 30_000, lifetime / 2);
    return { value: answer.access_token, renewAt: this.#now() + lifetime - early };
  }
}
