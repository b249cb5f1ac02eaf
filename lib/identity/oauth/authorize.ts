import type { Client } from './clients';
import type { ClientLookup } from './client-lookup';
import { CHALLENGE } from './pkce';
import { matchRedirectUri } from './redirect-uri';
import { issuer, parseResources } from './resources';
import { parseScopes, type Scope } from './scopes';

/**
 * The checks of an authorization request, in the order RFC 6749 §4.1.2.1 and RFC 9700 §4.1
 * require: until the client and its redirect URI are known to be right, an error is shown on
 * our own page and never redirected (a redirect to an unchecked URI is an open redirector).
 * After that, errors go back to the client's registered redirect URI with `error`, `state` and
 * `iss` (RFC 6749 §4.1.2.1, RFC 9207), for every client, as the interface says: nearly every
 * client registers itself, and a native or command-line client waiting on its loopback callback
 * would otherwise never learn that its request failed. The redirect goes only to a URI the
 * client registered (exact match), and carries nothing but the error, its description, the
 * client's own state and our issuer; SECURITY.md weighs what is left of RFC 9700 §4.11.2.
 */

export const MAX_STATE_LENGTH = 1024;

export interface AuthorizationRequest {
  client: Client;
  redirectUri: string;
  scopes: Scope[];
  resources: string[];
  state: string | null;
  codeChallenge: string;
}

export type AuthorizeCheck =
  | { kind: 'valid'; request: AuthorizationRequest }
  | { kind: 'error-page'; title: string; message: string; status?: number }
  | { kind: 'redirect'; location: string };

/** Appends the authorization response parameters to the client's URI, keeping its own query. */
export function authorizationResponseUrl(redirectUri: string, params: Record<string, string | null | undefined>): string {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== null && v !== undefined) url.searchParams.append(k, v);
  url.searchParams.append('iss', issuer());
  return url.href;
}

function single(params: URLSearchParams, name: string): { ok: true; value: string | null } | { ok: false } {
  const all = params.getAll(name);
  if (all.length > 1) return { ok: false };
  return { ok: true, value: all[0] ?? null };
}

export async function checkAuthorizationRequest(params: URLSearchParams, lookup: (clientId: string) => Promise<ClientLookup>): Promise<AuthorizeCheck> {
  const page = (title: string, message: string): AuthorizeCheck => ({ kind: 'error-page', title, message });

  // 1. The client (RFC 6749 §4.1.2.1: never redirect when the client is unknown).
  const clientId = single(params, 'client_id');
  if (!clientId.ok) return page('Invalid request', 'The request names client_id more than once.');
  if (!clientId.value) return page('Invalid request', 'The request does not say which application is asking (client_id is missing).');
  const found = await lookup(clientId.value);
  if (!found.ok && found.busy)
    return { kind: 'error-page', title: 'Try again in a minute', message: `The application could not be looked up: ${found.reason}.`, status: 429 };
  if (!found.ok) return page('Unknown application', `The application asking for access is not known here: ${found.reason}.`);
  const client = found.client;

  // 2. The redirect URI: exact match against the registered ones (RFC 9700 §4.1.3).
  const redirect = single(params, 'redirect_uri');
  if (!redirect.ok) return page('Invalid request', 'The request names redirect_uri more than once.');
  let redirectUri: string | null;
  if (redirect.value === null) {
    // RFC 6749 §3.1.2.3: may be omitted only when exactly one is registered.
    if (client.redirectUris.length !== 1) return page('Invalid request', 'redirect_uri is missing and the application registered more than one.');
    redirectUri = client.redirectUris[0]!;
  } else {
    redirectUri = matchRedirectUri(client.redirectUris, redirect.value);
    if (!redirectUri) return page('Invalid redirect URI', 'The redirect URI in the request is not one this application registered.');
  }

  // From here on the client gets the error at its redirect URI.
  const stateParam = single(params, 'state');
  const state = stateParam.ok ? stateParam.value : null;
  const fail = (error: string, description: string): AuthorizeCheck => ({
    kind: 'redirect',
    location: authorizationResponseUrl(redirectUri, { error, error_description: description, state }),
  });

  // RFC 6749 §3.1: request parameters must not be included more than once.
  for (const name of ['response_type', 'scope', 'state', 'code_challenge', 'code_challenge_method']) {
    if (params.getAll(name).length > 1) return fail('invalid_request', `The parameter ${name} is given more than once.`);
  }
  if (state !== null && state.length > MAX_STATE_LENGTH) return fail('invalid_request', `state must be at most ${MAX_STATE_LENGTH} characters.`);

  const responseType = params.get('response_type');
  if (!responseType) return fail('invalid_request', 'response_type is missing; use response_type=code.');
  if (responseType !== 'code') return fail('unsupported_response_type', 'Only response_type=code is supported.');

  // RFC 7636 and RFC 9700 §2.1.1: PKCE is required, with S256.
  const challenge = params.get('code_challenge');
  const method = params.get('code_challenge_method');
  if (!challenge) return fail('invalid_request', 'code_challenge is required (PKCE with S256).');
  if (method !== 'S256') {
    return fail('invalid_request', method ? `code_challenge_method ${method} is not supported; use S256.` : 'code_challenge_method=S256 is required.');
  }
  if (!CHALLENGE.test(challenge)) return fail('invalid_request', 'code_challenge must be the base64url SHA-256 of the verifier (43 characters).');

  const scopes = parseScopes(params.get('scope'));
  if (!scopes.ok) return fail('invalid_scope', `Unknown scope: ${scopes.unknown.join(', ')}.`);

  // RFC 8707: which resource the token is for.
  const resources = parseResources(params.getAll('resource'));
  if (!resources.ok) return fail('invalid_target', `Unknown resource ${resources.unknown}.`);

  return {
    kind: 'valid',
    request: { client, redirectUri, scopes: scopes.scopes, resources: resources.resources, state, codeChallenge: challenge },
  };
}
