import { agentRegistrationEnabled, sandboxTokenBody, verifyIdentityAssertion } from './agent-identity';
import { OAuthError } from '../../platform/http/errors';
import { json, type JsonReply } from '../../platform/http/kernel';
import { NO_STORE_HEADERS } from '../../platform/http/responses';
import { lookupClient, type ClientLookup } from './client-lookup';
import { secretMatches, type Client } from './clients';
import { redeemCode } from './codes';
import { JWT_BEARER_GRANT, supportedGrantTypes } from './metadata';
import { verifyPkce } from './pkce';
import { parseResources } from './resources';
import { parseScopes, scopeString } from './scopes';
import type { Database } from '../../platform/db/roles';
import type { MetadataFetchBudget } from './client-lookup';
import { requireOAuthSecrets, type OAuthSecrets } from '../secrets';
import { issueAccessToken } from './tokens';

/**
 * POST /oauth/token (RFC 6749 §3.2, §4.1.3): client authentication by the registered method,
 * then the authorization_code grant with PKCE. No refresh tokens are issued: a client runs the
 * flow again when its one-hour token expires (content/docs/authentication.md).
 * With agent registration on, also the JWT-bearer grant (RFC 7523 §2.1) for identity assertions.
 */

function invalidClient(description: string, basicUsed: boolean): OAuthError {
  // RFC 6749 §5.2: 401, with a challenge for the scheme the client tried.
  return new OAuthError('invalid_client', description, 401, basicUsed ? { 'WWW-Authenticate': 'Basic realm="oauth", charset="UTF-8"' } : {});
}

interface Credentials {
  clientId: string | undefined;
  secret: string | undefined;
  via: 'basic' | 'post' | 'none';
}

/** RFC 6749 §2.3.1: HTTP Basic with the form-urlencoded id and secret, or both in the body. */
export function clientCredentials(form: Record<string, string>, authorization: string | null): Credentials {
  const basic = /^Basic\s+(.+)$/i.exec(authorization ?? '');
  if (authorization && !basic) throw invalidClient('Only HTTP Basic client authentication is accepted in the Authorization header.', true);
  if (basic) {
    if (form.client_secret !== undefined) throw new OAuthError('invalid_request', 'Use one client authentication method, not two (RFC 6749 §2.3).');
    const decoded = Buffer.from(basic[1]!.trim(), 'base64').toString('utf8');
    const i = decoded.indexOf(':');
    if (i < 0) throw invalidClient('The Basic credentials are malformed.', true);
    let id: string;
    let secret: string;
    try {
      id = decodeURIComponent(decoded.slice(0, i).replace(/\+/g, ' '));
      secret = decodeURIComponent(decoded.slice(i + 1).replace(/\+/g, ' '));
    } catch {
      throw invalidClient('The Basic credentials are malformed.', true);
    }
    if (form.client_id !== undefined && form.client_id !== id) throw new OAuthError('invalid_request', 'client_id does not match the Basic credentials.');
    return { clientId: id, secret, via: 'basic' };
  }
  if (form.client_secret !== undefined) return { clientId: form.client_id, secret: form.client_secret, via: 'post' };
  return { clientId: form.client_id, secret: undefined, via: 'none' };
}

/** The client, authenticated exactly the way it registered. */
export async function authenticateClient(credentials: Credentials, lookup: (clientId: string) => Promise<ClientLookup>): Promise<Client> {
  const basicUsed = credentials.via === 'basic';
  if (!credentials.clientId) throw invalidClient('client_id is missing.', basicUsed);
  const found = await lookup(credentials.clientId);
  if (!found.ok && found.busy)
    throw new OAuthError('temporarily_unavailable', `The client could not be looked up: ${found.reason}.`, 503, { 'Retry-After': '60' });
  if (!found.ok) throw invalidClient('Unknown client.', basicUsed);
  const client = found.client;
  const expected = client.authMethod === 'client_secret_basic' ? 'basic' : client.authMethod === 'client_secret_post' ? 'post' : 'none';
  if (credentials.via !== expected) {
    throw invalidClient(`This client must authenticate with ${client.authMethod}.`, basicUsed || expected === 'basic');
  }
  if (expected !== 'none' && !(client.secretHash && credentials.secret !== undefined && secretMatches(credentials.secret, client.secretHash))) {
    throw invalidClient('Client authentication failed.', basicUsed);
  }
  return client;
}

async function authorizationCodeGrant(form: Record<string, string>, client: Client, secrets: OAuthSecrets, db: Database): Promise<JsonReply> {
  const { code, redirect_uri: redirectUri, code_verifier: verifier } = form;
  if (!code) throw new OAuthError('invalid_request', 'code is missing.');
  if (!redirectUri) throw new OAuthError('invalid_request', 'redirect_uri is missing: send the one the authorization request used.');
  if (!verifier) throw new OAuthError('invalid_request', 'code_verifier is missing (PKCE).');
  const requested = form.resource !== undefined ? parseResources([form.resource]) : null;
  if (requested && !requested.ok) throw new OAuthError('invalid_target', `Unknown resource ${requested.unknown}.`);

  const redeemed = await redeemCode(code, db);
  if (!redeemed.ok) {
    throw new OAuthError(
      'invalid_grant',
      redeemed.reason === 'expired' ? 'The authorization code has expired.' : 'The authorization code is invalid or was already used.',
    );
  }
  const b = redeemed.binding;
  // RFC 6749 §4.1.3: the same client, the same redirect URI; RFC 7636 §4.6: the verifier.
  if (b.clientId !== client.clientId) throw new OAuthError('invalid_grant', 'The authorization code was issued to another client.');
  if (b.redirectUri !== redirectUri) throw new OAuthError('invalid_grant', 'redirect_uri differs from the one of the authorization request.');
  if (!verifyPkce(verifier, b.codeChallenge)) throw new OAuthError('invalid_grant', 'The code_verifier does not match the code_challenge.');
  let audience = b.resources;
  if (requested?.ok) {
    // RFC 8707 §2.2: the token may be narrowed to a resource the grant covers, never widened.
    if (!requested.resources.every((r) => b.resources.includes(r))) {
      throw new OAuthError('invalid_target', 'The resource was not part of the authorization.');
    }
    audience = requested.resources;
  }
  const scope = scopeString(b.scopes);
  const { token, expiresIn } = await issueAccessToken({ sub: b.userId, client_id: client.clientId, scope, aud: audience }, secrets);
  return json({ access_token: token, token_type: 'Bearer', expires_in: expiresIn, scope }, { headers: NO_STORE_HEADERS });
}

/**
 * RFC 7523 §2.1: an identity assertion from /agent/identity for the sandbox token. Client
 * authentication is optional for this grant (RFC 7523 §3.1); credentials that are sent must be
 * valid, so a client never learns that a wrong secret was silently ignored.
 */
async function jwtBearerGrant(
  form: Record<string, string>,
  authorization: string | null,
  secrets: OAuthSecrets,
  lookup: (clientId: string) => Promise<ClientLookup>,
): Promise<JsonReply> {
  if (authorization !== null || form.client_id !== undefined || form.client_secret !== undefined) {
    await authenticateClient(clientCredentials(form, authorization), lookup);
  }
  const { assertion } = form;
  if (!assertion) throw new OAuthError('invalid_request', 'assertion is missing: send the identity_assertion from /agent/identity.');
  // RFC 7521 §4.1: `scope` is optional. An unknown one is refused; any valid one gets the sandbox
  // token, which always carries every scope, and the answer's `scope` says so (RFC 6749 §5.1).
  if (form.scope !== undefined && !parseScopes(form.scope).ok) throw new OAuthError('invalid_scope', 'scope names an unknown scope.');
  if (form.resource !== undefined && !parseResources([form.resource]).ok) throw new OAuthError('invalid_target', `Unknown resource ${form.resource}.`);
  const checked = await verifyIdentityAssertion(assertion, secrets);
  if (!checked.ok) throw new OAuthError('invalid_grant', checked.description);
  return json(sandboxTokenBody(), { headers: { ...NO_STORE_HEADERS, 'Service-Sandbox': 'true' } });
}

/** What the token endpoint needs: the signing key, the database, the budget of client metadata fetches. */
export interface TokenEndpointServices {
  oauthSecrets(): Promise<OAuthSecrets | null>;
  database(): Promise<Database>;
  readonly metadataFetches: MetadataFetchBudget;
}

/** A token request (RFC 6749 §4.1.3, RFC 7523 §2.1): the grant it names, for the client it authenticates. */
export async function answerTokenRequest(
  form: Record<string, string>,
  authorization: string | null,
  services: TokenEndpointServices,
  address: string,
): Promise<JsonReply> {
  const secrets = await requireOAuthSecrets(services);
  const db = await services.database();
  const lookup = (clientId: string) => lookupClient(clientId, db, services.metadataFetches, address);
  const grant = form.grant_type;
  if (!grant) throw new OAuthError('invalid_request', 'grant_type is missing.');
  if (grant === JWT_BEARER_GRANT && agentRegistrationEnabled()) return jwtBearerGrant(form, authorization, secrets, lookup);
  if (grant !== 'authorization_code') {
    throw new OAuthError('unsupported_grant_type', `grant_type ${grant} is not supported; use ${supportedGrantTypes().join(' or ')}.`);
  }
  const client = await authenticateClient(clientCredentials(form, authorization), lookup);
  return authorizationCodeGrant(form, client, secrets, db);
}
