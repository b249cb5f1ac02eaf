import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { sha256Hex } from '../../platform/crypto';
import { asService, type Database } from '../../platform/db/roles';
import { sql } from '../../platform/db/sql';

/**
 * Authorization codes (RFC 6749 §4.1.2: short-lived, single use; ours live 60 s): random, stored as
 * a SHA-256, bound to the client, the exact redirect URI, the PKCE challenge, the scopes, the
 * resources and the user.
 */

export const CODE_TTL_S = 60;

export interface CodeBinding {
  clientId: string;
  userId: string;
  redirectUri: string;
  codeChallenge: string;
  scopes: string[];
  resources: string[];
}

export async function issueCode(binding: CodeBinding, engine: Database): Promise<string> {
  const code = `mac_${randomBytes(32).toString('base64url')}`;
  await asService(engine).script(
    // Codes long past their minute are of no use to anyone: sweep them as new ones are made.
    sql`delete from public.oauth_authorization_codes where expires_at < now() - interval '1 hour' returning 1`,
    sql`insert into public.oauth_authorization_codes
          (code_hash, client_id, user_id, redirect_uri, code_challenge, scopes, resources, expires_at)
        values (${sha256Hex(code)}, ${binding.clientId}, ${binding.userId}, ${binding.redirectUri}, ${binding.codeChallenge},
                ${binding.scopes}::text[], ${binding.resources}::text[], now() + make_interval(secs => ${CODE_TTL_S}))
        returning 1`,
    // A publisher approved this client: it is in use, and kept (lib/identity/oauth/clients.ts, retention).
    sql`update public.oauth_clients set last_used_at = now() where client_id = ${binding.clientId} returning 1`,
  );
  return code;
}

/** A code as its redemption reads it: what it was bound to, and whether its minute is over. */
const redeemedRow = z.object({
  client_id: z.string(),
  user_id: z.string(),
  redirect_uri: z.string(),
  code_challenge: z.string(),
  scopes: z.array(z.string()),
  resources: z.array(z.string()),
  expired: z.boolean(),
});

export type Redeemed = { ok: true; binding: CodeBinding } | { ok: false; reason: 'unknown' | 'expired' };

/**
 * Marks the code used and returns what it was bound to. The update is the single-use check:
 * of two concurrent redemptions only one sees `used_at is null`. A code is spent even when the
 * rest of the request then fails (a wrong verifier gets no second try).
 */
export async function redeemCode(code: string, engine: Database): Promise<Redeemed> {
  if (!/^mac_[A-Za-z0-9_-]{43}$/.test(code)) return { ok: false, reason: 'unknown' };
  const [row] = await asService(engine).query(
    sql`update public.oauth_authorization_codes set used_at = now()
        where code_hash = ${sha256Hex(code)} and used_at is null
        returning client_id, user_id, redirect_uri, code_challenge, scopes, resources, expires_at <= now() as expired`,
    redeemedRow,
  );
  if (!row) return { ok: false, reason: 'unknown' };
  if (row.expired) return { ok: false, reason: 'expired' };
  return {
    ok: true,
    binding: {
      clientId: row.client_id,
      userId: row.user_id,
      redirectUri: row.redirect_uri,
      codeChallenge: row.code_challenge,
      scopes: row.scopes,
      resources: row.resources,
    },
  };
}
