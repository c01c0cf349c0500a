/** An error of the authorization server's endpoints, answered as RFC 6749 §5.2 says. */
export class OAuthError extends Error {
  constructor(
    readonly error:
      | 'invalid_request'
      | 'invalid_client'
      | 'invalid_grant'
      | 'invalid_scope'
      | 'invalid_target'
      | 'unauthorized_client'
      | 'unsupported_grant_type'
      | 'unsupported_token_type'
      | 'slow_down'
      | 'invalid_dpop_proof'
      | 'use_dpop_nonce',
    readonly description: string,
    readonly status = error === 'invalid_client' ? 401 : 400,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
    this.name = 'OAuthError';
  }

  get body(): { error: string; error_description: string } {
    return { error: this.error, error_description: this.description };
  }
}
