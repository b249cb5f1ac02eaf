import { z } from 'zod';
import { asConsoleUser } from '../../identity/console';
import { randomBase62 } from '../../identity/keys/api-key';
import type { Database } from '../../platform/db/roles';
import { sql } from '../../platform/db/sql';
import { sha256Hex } from '../../platform/crypto';
import { ok, refused, type Result } from '../../platform/kit/result';

/**
 * An advertiser's means of reporting conversions (migration 20261221000000_conversions):
 *
 * - conversions keys, `ck_live_` and 32 base62 characters, secrets of the advertiser's server for
 *   `POST /functions/v1/conversions`. Shown once; kept as a SHA-256 of the whole key (190 random
 *   bits need no slow hash), a lookup prefix and the last four characters. Revoked, never deleted.
 * - the conversion tag id, `ct_` and 24 base62 characters, public, in the advertiser's pages: it
 *   says whose tag sends a conversion, so another advertiser's click id sent with it is refused.
 *
 * Made, listed and revoked by the advertiser in its console, as itself (row-level security).
 */

export const CONVERSION_KEY_PATTERN = /^ck_live_[A-Za-z0-9]{32}$/;
export const CONVERSION_TAG_PATTERN = /^ct_[A-Za-z0-9]{24}$/;
/** The most conversions keys an advertiser has active at once. */
export const MAX_ACTIVE_CONVERSION_KEYS = 5;
const TAG = 'ck_live_';
const PREFIX_LENGTH = TAG.length + 8;

export interface ConversionKey {
  id: string;
  name: string;
  masked_key: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export function hashConversionKey(key: string): string {
  return sha256Hex(key);
}

/** A new key, and what is kept of it. */
export function generateConversionKey(): { key: string; prefix: string; last4: string; hash: string } {
  const key = TAG + randomBase62(32);
  return { key, prefix: key.slice(0, PREFIX_LENGTH), last4: key.slice(-4), hash: hashConversionKey(key) };
}

const keyRow = z.object({
  id: z.string(),
  name: z.string(),
  key_prefix: z.string(),
  key_last4: z.string(),
  created_at: z.coerce.date(),
  last_used_at: z.coerce.date().nullable(),
  revoked_at: z.coerce.date().nullable(),
});

function present(row: z.output<typeof keyRow>): ConversionKey {
  return {
    id: row.id,
    name: row.name,
    masked_key: `${row.key_prefix}…${row.key_last4}`,
    created_at: row.created_at.toISOString(),
    last_used_at: row.last_used_at?.toISOString() ?? null,
    revoked_at: row.revoked_at?.toISOString() ?? null,
  };
}

/** The advertiser's keys, newest first, revoked ones too. */
export async function listConversionKeys(db: Database, userId: string): Promise<ConversionKey[]> {
  const rows = await asConsoleUser(db, userId).query(
    sql`select id, name, key_prefix, key_last4, created_at, last_used_at, revoked_at from public.conversion_keys
        where advertiser_id = ${userId}::uuid order by created_at desc, id limit 50`,
    keyRow,
  );
  return rows.map(present);
}

/** A new key, its secret shown this once. Refused past MAX_ACTIVE_CONVERSION_KEYS, or for someone who is no advertiser. */
export async function createConversionKey(db: Database, userId: string, name: string): Promise<Result<ConversionKey & { key: string }>> {
  const made = generateConversionKey();
  // One make at a time per advertiser, so the count below is the one the insert sees.
  const rows = await asConsoleUser(db, userId).transaction(async (tx) => {
    await tx.query(sql`select pg_advisory_xact_lock(hashtextextended(${`conversion_keys:${userId}`}, 0))`);
    return tx.query(
      sql`insert into public.conversion_keys (advertiser_id, name, key_prefix, key_last4, key_hash)
          select ${userId}::uuid, ${name}, ${made.prefix}, ${made.last4}, ${made.hash}
          where exists (select 1 from public.advertiser_profiles p where p.user_id = ${userId}::uuid)
            and (select count(*) from public.conversion_keys k where k.advertiser_id = ${userId}::uuid and k.revoked_at is null)
                < ${MAX_ACTIVE_CONVERSION_KEYS}
          returning id, name, key_prefix, key_last4, created_at, last_used_at, revoked_at`,
      keyRow,
    );
  });
  const row = rows[0];
  if (!row) {
    return refused(
      `You have ${MAX_ACTIVE_CONVERSION_KEYS} active conversions keys, the most you can have (or no advertiser account): revoke one you no longer use to make room.`,
    );
  }
  return ok({ ...present(row), key: made.key });
}

export async function revokeConversionKey(db: Database, userId: string, id: string): Promise<Result> {
  const rows = await asConsoleUser(db, userId).query(
    sql`update public.conversion_keys set revoked_at = now() where id = ${id}::uuid and revoked_at is null returning id`,
  );
  return rows.length === 1 ? ok(undefined) : refused('That key does not exist, or is revoked already.');
}

/** The advertiser's conversion tag id, made the first time it is asked for; null for someone who is no advertiser. */
export async function conversionTag(db: Database, userId: string): Promise<string | null> {
  const session = asConsoleUser(db, userId);
  const tagRow = z.object({ tag: z.string() });
  const [found] = await session.query(sql`select tag from public.conversion_tags where advertiser_id = ${userId}::uuid`, tagRow);
  if (found) return found.tag;
  const [made] = await session.query(
    sql`insert into public.conversion_tags (advertiser_id, tag)
        select ${userId}::uuid, ${`ct_${randomBase62(24)}`}
        where exists (select 1 from public.advertiser_profiles p where p.user_id = ${userId}::uuid)
        on conflict (advertiser_id) do nothing
        returning tag`,
    tagRow,
  );
  if (made) return made.tag;
  const [again] = await session.query(sql`select tag from public.conversion_tags where advertiser_id = ${userId}::uuid`, tagRow);
  return again?.tag ?? null;
}
