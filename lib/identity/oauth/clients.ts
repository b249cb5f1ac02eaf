import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { sameText, sha256Hex } from '../../platform/crypto';
import type { Database } from '../../platform/db/roles';
import { asService } from '../../platform/db/roles';
import { sql } from '../../platform/db/sql';
import { OAuthError } from '../../platform/http/errors';
import { checkClientName } from './client-name';
import { AUTH_METHODS, type TokenEndpointAuthMethod } from './metadata';
import { checkRedirectUri, MAX_REDIRECT_URIS } from './redirect-uri';
import { parseScopes } from './scopes';

/**
 * OAuth clients: dynamic registration (RFC 7591) and lookup. A client is either registered here
 * or identified by an https URL whose metadata document we fetch (client-metadata.ts).
 */

export interface Client {
  clientId: string;
  name: string;
  redirectUris: string[];
  authMethod: TokenEndpointAuthMethod;
  /** SHA-256 of the secret; null for public clients. */
  secretHash: string | null;
  kind: 'registered' | 'metadata-document';
  /** Nobody vouches for a self-registered client: the consent page says so. */
  verified: boolean;
}

export { MAX_CLIENT_NAME } from './client-name';

export interface RegistrationInput {
  client_name: string;
  redirect_uris: string[];
  token_endpoint_auth_method: TokenEndpointAuthMethod;
}

/** RFC 7591 §3.2.2: `invalid_redirect_uri` or `invalid_client_metadata`, naming the field. */
export function validateRegistration(raw: unknown): RegistrationInput {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new OAuthError('invalid_client_metadata', 'The body must be a JSON object of client metadata.');
  }
  const body = raw as Record<string, unknown>;
  const uris = body.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0) {
    throw new OAuthError('invalid_redirect_uri', 'redirect_uris must be a non-empty array of strings.');
  }
  if (uris.length > MAX_REDIRECT_URIS) throw new OAuthError('invalid_redirect_uri', `At most ${MAX_REDIRECT_URIS} redirect_uris.`);
  for (const uri of uris) {
    if (typeof uri !== 'string') throw new OAuthError('invalid_redirect_uri', 'Every redirect URI must be a string.');
    const check = checkRedirectUri(uri);
    if (!check.ok) throw new OAuthError('invalid_redirect_uri', `Redirect URI refused: ${check.reason}.`);
  }
  // The consent page shows the name: printable text only (client-name.ts), the same rule as metadata documents.
  const name = checkClientName(body.client_name);
  if (!name.ok) throw new OAuthError('invalid_client_metadata', `${name.reason}.`);
  // RFC 7591 §2: the default is client_secret_basic.
  const method = body.token_endpoint_auth_method ?? 'client_secret_basic';
  if (typeof method !== 'string' || !(AUTH_METHODS as readonly string[]).includes(method)) {
    throw new OAuthError('invalid_client_metadata', `token_endpoint_auth_method must be one of ${AUTH_METHODS.join(', ')}.`);
  }
  const grants = body.grant_types;
  if (grants !== undefined && (!Array.isArray(grants) || grants.some((g) => g !== 'authorization_code'))) {
    throw new OAuthError('invalid_client_metadata', 'grant_types may only contain authorization_code (there are no refresh tokens).');
  }
  const responseTypes = body.response_types;
  if (responseTypes !== undefined && (!Array.isArray(responseTypes) || responseTypes.some((t) => t !== 'code'))) {
    throw new OAuthError('invalid_client_metadata', 'response_types may only contain code.');
  }
  if (body.scope !== undefined && (typeof body.scope !== 'string' || !parseScopes(body.scope).ok)) {
    throw new OAuthError('invalid_client_metadata', 'scope must be a space-separated subset of the supported scopes.');
  }
  return { client_name: name.name, redirect_uris: uris as string[], token_endpoint_auth_method: method as TokenEndpointAuthMethod };
}

export function hashClientSecret(secret: string): string {
  return sha256Hex(secret);
}

export function secretMatches(secret: string, hash: string): boolean {
  return sameText(hashClientSecret(secret), hash);
}

export interface RegisteredClient {
  client_id: string;
  client_secret?: string;
  client_id_issued_at: number;
  client_secret_expires_at?: number;
  client_name: string;
  redirect_uris: string[];
  token_endpoint_auth_method: TokenEndpointAuthMethod;
  grant_types: string[];
  response_types: string[];
}

/** A client nobody ever authorized is deleted this long after it registered. */
export const UNUSED_CLIENT_TTL_H = 24;
/** A client nobody authorized for this long is deleted. */
export const IDLE_CLIENT_TTL_DAYS = 180;
/** How many expired clients one registration deletes: enough to outpace any registration rate the budgets allow. */
const SWEEP = 100;
/**
 * How many clients nobody approved yet one address (an IPv6 /64) may have registered within
 * the last day. What a stranger can store is bounded by this, not by how often they register:
 * a CI pipeline that registers a client per run and approves it, or an office behind one
 * address, is never refused; a registration left pending expires after UNUSED_CLIENT_TTL_H.
 */
export const MAX_PENDING_CLIENTS_PER_ADDRESS = 100;

/** A registration: the client, or the refusal of an address at its limit, with when a place frees up. */
export type Registration = { ok: true; client: RegisteredClient } | { ok: false; retryAfterS: number };

/**
 * Creates the client; the secret exists only in the answer, the database keeps its hash. Each
 * registration first deletes up to SWEEP clients that expired (never authorized within a day,
 * or not for 180 days), so what strangers can store stays bounded with no scheduler, then
 * refuses an address (`from`, a keyed hash of it) that has MAX_PENDING_CLIENTS_PER_ADDRESS
 * clients pending. Registrations from one address take turns (an advisory lock on its hash, held
 * to the end of the message), so two at once cannot both take the last place.
 */
export async function registerClient(input: RegistrationInput, from: string, engine: Database): Promise<Registration> {
  const clientId = `mcl_${randomBytes(16).toString('base64url')}`;
  const secret = input.token_endpoint_auth_method === 'none' ? undefined : `mcs_${randomBytes(32).toString('base64url')}`;
  const pending = sql`public.oauth_clients p
    where p.registered_from = ${from} and p.last_used_at is null and p.created_at > now() - make_interval(hours => ${UNUSED_CLIENT_TTL_H})`;
  const [, , [row] = [], [oldest] = []] = (await asService(engine).script(
    sql`select 1 as locked from pg_advisory_xact_lock(hashtext(${`oauth_register ${from}`}))`,
    sql`delete from public.oauth_clients where client_id in (
          select client_id from public.oauth_clients
          where last_used_at is null and created_at < now() - make_interval(hours => ${UNUSED_CLIENT_TTL_H})
          union all
          select client_id from public.oauth_clients
          where last_used_at < now() - make_interval(days => ${IDLE_CLIENT_TTL_DAYS})
          limit ${SWEEP})
        returning 1`,
    sql`insert into public.oauth_clients (client_id, client_name, redirect_uris, token_endpoint_auth_method, client_secret_hash, registered_from)
        select ${clientId}, ${input.client_name}, ${input.redirect_uris}::text[], ${input.token_endpoint_auth_method}, ${secret ? hashClientSecret(secret) : null}, ${from}
        where (select count(*) from ${pending}) < ${MAX_PENDING_CLIENTS_PER_ADDRESS}
        returning created_at`,
    sql`select ceil(extract(epoch from min(p.created_at) + make_interval(hours => ${UNUSED_CLIENT_TTL_H}) - now()))::int as retry_after_s from ${pending}`,
  )) as [unknown, unknown, { created_at: Date }[]?, { retry_after_s: number | null }[]?];
  if (!row) return { ok: false, retryAfterS: Math.max(1, oldest?.retry_after_s ?? 1) };
  const client: RegisteredClient = {
    client_id: clientId,
    ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
    client_id_issued_at: Math.floor(row!.created_at.getTime() / 1000),
    client_name: input.client_name,
    redirect_uris: input.redirect_uris,
    token_endpoint_auth_method: input.token_endpoint_auth_method,
    grant_types: ['authorization_code'],
    response_types: ['code'],
  };
  return { ok: true, client };
}

/** A registered client's row; its method is one the table's check allows, and a public client (`none`) has no secret hash. */
const registeredClientRow = z.object({
  client_id: z.string(),
  client_name: z.string(),
  redirect_uris: z.array(z.string()),
  token_endpoint_auth_method: z.enum(AUTH_METHODS),
  client_secret_hash: z.string().nullable(),
});

export async function findRegisteredClient(clientId: string, engine: Database): Promise<Client | null> {
  if (!/^mcl_[A-Za-z0-9_-]{22}$/.test(clientId)) return null;
  const [row] = await asService(engine).query(
    sql`select client_id, client_name, redirect_uris, token_endpoint_auth_method, client_secret_hash
        from public.oauth_clients where client_id = ${clientId}`,
    registeredClientRow,
  );
  if (!row) return null;
  return {
    clientId: row.client_id,
    name: row.client_name,
    redirectUris: row.redirect_uris,
    authMethod: row.token_endpoint_auth_method,
    secretHash: row.client_secret_hash,
    kind: 'registered',
    verified: false,
  };
}
