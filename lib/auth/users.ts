import { z } from 'zod';
import { asService, type Database } from '../platform/db/roles';
import { sql } from '../platform/db/sql';
import { decoyHash, hashPassword, verifyPassword } from './password';

/**
 * Publishers' accounts as sign-in sees them. Sign-in and sign-up run before anyone is known, so
 * they go through the service module; nothing here returns a hash.
 */

export type SignedInUser = {
  id: string;
  email: string;
  name: string | null;
};

export const MIN_PASSWORD = 10;
export const MAX_PASSWORD = 200;

/**
 * The sign-up form. Each message is an error code of SIGN_UP_ERRORS (messages.ts): the form
 * goes back to the page with the code, and the page shows the code's message.
 */
export const signUpInput = z.object({
  email: z.string().trim().toLowerCase().max(254, 'EmailTooLong').email('InvalidEmail'),
  password: z.string().min(MIN_PASSWORD, 'PasswordTooShort').max(MAX_PASSWORD, 'PasswordTooLong'),
  name: z.string().trim().min(1, 'NameMissing').max(100, 'NameTooLong'),
  company: z.string().trim().max(100, 'CompanyTooLong'),
});
export type SignUpInput = z.infer<typeof signUpInput>;

export type SignUpResult = { ok: true; user: SignedInUser } | { ok: false; error: string };

/**
 * A new publisher account, or `ok: false` when the email already has one, which is then left
 * exactly as it was. The password is hashed first either way, so both cost the same scrypt work.
 */
export async function createPublisher(input: SignUpInput, engine: Database): Promise<SignUpResult> {
  const hash = await hashPassword(input.password);
  return asService(engine).transaction(async (db) => {
    const [user] = await db.query<SignedInUser>(
      sql`insert into public.users (email, name, company, role) values (${input.email}, ${input.name}, ${input.company || null}, 'Publisher')
          on conflict (email) do nothing returning id, email, name`,
    );
    if (!user) return { ok: false, error: 'An account with this email address already exists. Sign in instead.' };
    await db.query(sql`insert into public.user_credentials (user_id, password_hash) values (${user.id}, ${hash})`);
    return { ok: true, user };
  });
}

/** The user whose password this is, or null. Spends the same time whether or not the email exists. */
export async function checkPassword(email: string, password: string, engine: Database): Promise<SignedInUser | null> {
  const normalized = email.trim().toLowerCase();
  const [row] = await asService(engine).query<SignedInUser & { password_hash: string | null }>(
    sql`select u.id, u.email, u.name, c.password_hash
        from public.users u left join public.user_credentials c on c.user_id = u.id where u.email = ${normalized}`,
  );
  const ok = await verifyPassword(password, row?.password_hash ?? (await decoyHash()));
  if (!row || !row.password_hash || !ok) return null;
  return { id: row.id, email: row.email, name: row.name };
}

export async function findUser(id: string, engine: Database): Promise<SignedInUser | null> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return null;
  const [row] = await asService(engine).query<SignedInUser>(sql`select id, email, name from public.users where id = ${id}::uuid`);
  return row ?? null;
}

/**
 * The account behind an external identity (GitHub, Google), created on first sign-in. An email
 * already used by another account is not taken over: that account signs in its own way.
 */
export async function userForIdentity(
  identity: { provider: 'github' | 'google'; providerUserId: string; email: string | null; name: string | null },
  engine: Database,
): Promise<SignUpResult> {
  return asService(engine).transaction(async (db) => {
    const [linked] = await db.query<SignedInUser>(
      sql`select u.id, u.email, u.name from public.user_identities i join public.users u on u.id = i.user_id
          where i.provider = ${identity.provider} and i.provider_user_id = ${identity.providerUserId}`,
    );
    if (linked) return { ok: true, user: linked };
    if (!identity.email) return { ok: false, error: 'The identity provider did not share an email address.' };
    const [user] = await db.query<SignedInUser>(
      sql`insert into public.users (email, name, role) values (${identity.email.toLowerCase()}, ${identity.name}, 'Publisher')
          on conflict (email) do nothing returning id, email, name`,
    );
    if (!user) return { ok: false, error: 'An account with this email address already exists: sign in with its password.' };
    await db.query(
      sql`insert into public.user_identities (provider, provider_user_id, user_id) values (${identity.provider}, ${identity.providerUserId}, ${user.id})`,
    );
    return { ok: true, user };
  });
}

/**
 * The sealed TOTP secret of staff member `userId` (migration 20261206000000_payouts), or null when
 * the user is not staff: read at sign-in, before the session that could read it as the user exists.
 */
export async function staffTotpSecret(userId: string, engine: Database): Promise<string | null> {
  const [row] = await asService(engine).query<{ sealed: string }>(
    sql`select totp_secret_ciphertext as sealed from public.staff_members where user_id = ${userId}::uuid`,
  );
  return row?.sealed ?? null;
}

/** Records that staff member `userId` used the code of `step`; false when that step (or a later one) was used before (RFC 6238 §5.2). */
export async function spendTotpStep(userId: string, step: number, engine: Database): Promise<boolean> {
  const [row] = await asService(engine).query<{ used: boolean }>(sql`select public.staff_totp_step_used(${userId}::uuid, ${step}) as used`);
  return row?.used === true;
}
