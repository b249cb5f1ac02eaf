import { z } from 'zod';
import { asService, type Database } from '../../platform/db/roles';
import { sql } from '../../platform/db/sql';
import { decoyHash, hashPassword, verifyPassword } from './password';

/**
 * Publishers' accounts as sign-in sees them. Sign-in and sign-up run before anyone is known, so
 * they go through the service module; nothing here returns a hash.
 */

/** A user as sign-in reads them: the row of `select id, email, name from public.users`, checked as it is read. */
const signedInUser = z.object({ id: z.string(), email: z.string(), name: z.string().nullable() });
export type SignedInUser = z.output<typeof signedInUser>;

/** A user, and whether they are staff (`exists (… public.staff_members …) as staff`). */
const userAndStaff = signedInUser.extend({ staff: z.boolean() });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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
    const [user] = await db.query(
      sql`insert into public.users (email, name, company, role) values (${input.email}, ${input.name}, ${input.company || null}, 'Publisher')
          on conflict (email) do nothing returning id, email, name`,
      signedInUser,
    );
    if (!user) return { ok: false, error: 'An account with this email address already exists. Sign in instead.' };
    await db.query(sql`insert into public.user_credentials (user_id, password_hash) values (${user.id}, ${hash})`);
    return { ok: true, user };
  });
}

/** A user whose password was right, and whether they are staff (who sign in at /ops only, lib/identity/auth/staff.ts). */
export type PasswordHolder = z.output<typeof userAndStaff>;

/**
 * The user whose password this is, or null. Spends the same time whether or not the email exists,
 * and says in the same read whether the account is staff, so a caller that refuses staff takes no
 * longer to refuse a right password than a wrong one.
 */
export async function checkPassword(email: string, password: string, engine: Database): Promise<PasswordHolder | null> {
  const normalized = email.trim().toLowerCase();
  const [row] = await asService(engine).query(
    sql`select u.id, u.email, u.name, c.password_hash, exists (select 1 from public.staff_members s where s.user_id = u.id) as staff
        from public.users u left join public.user_credentials c on c.user_id = u.id where u.email = ${normalized}`,
    // No credentials row (an account of an identity provider alone): no hash.
    userAndStaff.extend({ password_hash: z.string().nullable() }),
  );
  const ok = await verifyPassword(password, row?.password_hash ?? (await decoyHash()));
  if (!row || !row.password_hash || !ok) return null;
  return { id: row.id, email: row.email, name: row.name, staff: row.staff };
}

/**
 * The publisher `id` names, or null: also for staff, whose accounts have no publisher session
 * (they sign in at /ops, with both factors; a publisher cookie of a staff account, however it was
 * made, signs in nobody).
 */
export async function findUser(id: string, engine: Database): Promise<SignedInUser | null> {
  if (!UUID.test(id)) return null;
  const [row] = await asService(engine).query(
    sql`select u.id, u.email, u.name from public.users u
        where u.id = ${id}::uuid and not exists (select 1 from public.staff_members s where s.user_id = u.id)`,
    signedInUser,
  );
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
    const [linked] = await db.query(
      sql`select u.id, u.email, u.name, exists (select 1 from public.staff_members s where s.user_id = u.id) as staff
          from public.user_identities i join public.users u on u.id = i.user_id
          where i.provider = ${identity.provider} and i.provider_user_id = ${identity.providerUserId}`,
      userAndStaff,
    );
    // Staff sign in at /ops with both factors, never with an identity provider alone.
    if (linked?.staff) return { ok: false, error: 'Staff sign in at /ops.' };
    if (linked) return { ok: true, user: { id: linked.id, email: linked.email, name: linked.name } };
    if (!identity.email) return { ok: false, error: 'The identity provider did not share an email address.' };
    const [user] = await db.query(
      sql`insert into public.users (email, name, role) values (${identity.email.toLowerCase()}, ${identity.name}, 'Publisher')
          on conflict (email) do nothing returning id, email, name`,
      signedInUser,
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
  const [row] = await asService(engine).query(
    sql`select totp_secret_ciphertext as sealed from public.staff_members where user_id = ${userId}::uuid`,
    z.object({ sealed: z.string() }),
  );
  return row?.sealed ?? null;
}

/** Records that staff member `userId` used the code of `step`; false when that step (or a later one) was used before (RFC 6238 §5.2). */
export async function spendTotpStep(userId: string, step: number, engine: Database): Promise<boolean> {
  const [row] = await asService(engine).query(sql`select public.staff_totp_step_used(${userId}::uuid, ${step}) as used`, z.object({ used: z.boolean() }));
  return row?.used === true;
}

/** Whether a staff member's second factor is locked, as public.staff_factor_settle and `factor_locked_at is not null` answer it. */
const factorLocked = z.object({ locked: z.boolean() });

/**
 * Whether the second factor of the staff account of `email` is locked (its budget of wrong codes
 * spent, lib/identity/auth/staff.ts): read before the password is checked, so the answer says nothing of it.
 */
export async function staffFactorLocked(email: string, engine: Database): Promise<boolean> {
  const [row] = await asService(engine).query(
    sql`select s.factor_locked_at is not null as locked from public.staff_members s join public.users u on u.id = s.user_id
        where u.email = ${email.trim().toLowerCase()}`,
    factorLocked,
  );
  return row?.locked === true;
}

/** Takes one unit of staff member `userId`'s budget of wrong codes before a code is checked: the attempt's id, or null (check nothing). */
export async function takeStaffFactorAttempt(userId: string, budget: { codes: number; windowS: number }, engine: Database): Promise<string | null> {
  const [row] = await asService(engine).query(
    sql`select public.staff_factor_take(${userId}::uuid, ${budget.codes}, ${budget.windowS})::text as id`,
    // The attempt's bigint id as text; null when the factor is locked, the budget is taken, or the user is no staff.
    z.object({ id: z.string().nullable() }),
  );
  return row?.id ?? null;
}

/** Settles an attempt of `takeStaffFactorAttempt` once its code was checked; whether the factor is locked now. */
export async function settleStaffFactorAttempt(
  attempt: string,
  right: boolean,
  budget: { codes: number; windowS: number },
  engine: Database,
): Promise<boolean> {
  const [row] = await asService(engine).query(
    sql`select public.staff_factor_settle(${attempt}::bigint, ${right}, ${budget.codes}, ${budget.windowS}) as locked`,
    factorLocked,
  );
  return row?.locked === true;
}

export type StaffUnlock = { userId: string; wasLocked: boolean; wrongCodesForgotten: number };

/** Unlocks the second factor of the staff account of `email`, audited with `why` (scripts/staff.ts); null when no staff account has that email. */
export async function unlockStaffFactor(email: string, why: string, engine: Database): Promise<StaffUnlock | null> {
  const [row] = await asService(engine).query(
    sql`select public.staff_factor_unlock(${email}, ${why}) as v`,
    // The function's JSON answer, or null for an email of no staff member.
    z.object({ v: z.object({ user_id: z.string(), was_locked: z.boolean(), wrong_codes_forgotten: z.number().int() }).nullable() }),
  );
  const v = row?.v;
  return v ? { userId: v.user_id, wasLocked: v.was_locked, wrongCodesForgotten: v.wrong_codes_forgotten } : null;
}

/** A new staff session of `userId`, open for `maxAgeS` seconds unless signed out: its id. */
export async function startStaffSession(userId: string, maxAgeS: number, engine: Database): Promise<string> {
  const [row] = await asService(engine).query(sql`select public.staff_session_start(${userId}::uuid, ${maxAgeS}) as id`, z.object({ id: z.string() }));
  return row!.id;
}

/** Whether staff session `sessionId` of `userId` is open (not signed out, not expired, still staff). */
export async function staffSessionActive(sessionId: string, userId: string, engine: Database): Promise<boolean> {
  if (!UUID.test(sessionId) || !UUID.test(userId)) return false;
  const [row] = await asService(engine).query(
    sql`select public.staff_session_active(${sessionId}::uuid, ${userId}::uuid) as active`,
    z.object({ active: z.boolean() }),
  );
  return row?.active === true;
}

/** Ends staff session `sessionId` of `userId` (sign-out); whether it was open. */
export async function endStaffSession(sessionId: string, userId: string, engine: Database): Promise<boolean> {
  if (!UUID.test(sessionId) || !UUID.test(userId)) return false;
  const [row] = await asService(engine).query(
    sql`select public.staff_session_end(${sessionId}::uuid, ${userId}::uuid) as ended`,
    z.object({ ended: z.boolean() }),
  );
  return row?.ended === true;
}
