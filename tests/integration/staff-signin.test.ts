import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { asStaff, opsCookieName, signedInStaff, staffSignIn } from '@/lib/auth/staff';
import { totpCode } from '@/lib/auth/staff-totp';
import { sessionCookie } from '@/lib/auth/signin';
import { DEMO_OPERATOR_EMAIL, DEMO_OPERATOR_TOTP_SECRET, DEMO_PASSWORD } from '@/lib/demo/seed';
import type { Engine } from '@/lib/platform/db/engine';
import { sql } from '@/lib/platform/db/sql';
import type { Services } from '@/lib/services';
import { demoUsers, openPgliteCopy } from '../helpers/db';
import { makeServices } from '../helpers/services';

/**
 * Staff sign-in (lib/auth/staff.ts): the operator console takes a password and a TOTP code, both;
 * a code signs in once; a publisher, whatever they send, and a publisher's session, reach no staff
 * session; and the staff session alone works the staff functions of the database.
 */

describe('staff sign-in', () => {
  let db: Engine;
  let services: Services;
  beforeAll(async () => {
    db = await openPgliteCopy();
  });
  afterAll(async () => {
    await db.close();
  });
  beforeEach(() => {
    // The clock stopped in the middle of a 30-second step: a code made for "now" is still of now
    // when it is checked, however long the password hash takes (it failed once in a while when a
    // step ended in between).
    const now = Math.floor(Date.now() / 30_000) * 30_000 + 15_000;
    services = makeServices({ database: db, now: () => now });
  });

  /** The code of the step `offset` steps from now: one step either side is accepted, each step once, in order. */
  const code = (offset: number) => totpCode(DEMO_OPERATOR_TOTP_SECRET, new Date(services.now() + offset * 30_000));
  const signIn = (fields: Record<string, string>, ip = '192.0.2.50') => {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.set(k, v);
    return staffSignIn(form, new Headers({ 'x-forwarded-for': ip }), services);
  };
  const withCookie = (name: string, value: string) => new Headers({ cookie: `${name}=${value}` });

  it('signs staff in with the password and a code, once per code, and the session works the staff functions', async () => {
    const first = await signIn({ email: DEMO_OPERATOR_EMAIL, password: DEMO_PASSWORD, code: code(-1) });
    expect(first.ok).toBe(true);
    if (!first.ok) return;
    expect(first.cookie).toMatchObject({ name: opsCookieName(), options: { httpOnly: true, sameSite: 'lax', path: '/', maxAge: 3600 } });
    const staff = await signedInStaff(withCookie(first.cookie.name, first.cookie.value), services);
    expect(staff).toMatchObject({ id: first.user.id, email: DEMO_OPERATOR_EMAIL });
    const [row] = await asStaff(db, staff!).query<{ v: { payouts: unknown[] } }>(sql`select public.staff_overview() as v`);
    expect(row!.v.payouts.length).toBeGreaterThan(0);

    // The same code again (a replay), or an older one: refused.
    expect(await signIn({ email: DEMO_OPERATOR_EMAIL, password: DEMO_PASSWORD, code: code(-1) })).toEqual({ ok: false, error: 'CredentialsSignin' });
    // A later one: accepted.
    expect((await signIn({ email: DEMO_OPERATOR_EMAIL, password: DEMO_PASSWORD, code: code(0) })).ok).toBe(true);
  });

  it.each([
    ['no code', { email: DEMO_OPERATOR_EMAIL, password: DEMO_PASSWORD }],
    ['a wrong code', { email: DEMO_OPERATOR_EMAIL, password: DEMO_PASSWORD, code: '000000' }],
    ['a code of two minutes ago', { email: DEMO_OPERATOR_EMAIL, password: DEMO_PASSWORD, code: 'old' }],
    ['a wrong password with a right code', { email: DEMO_OPERATOR_EMAIL, password: 'wrong-password', code: 'now' }],
    ['a publisher with their password and the operator’s code', { email: 'demo@example.com', password: DEMO_PASSWORD, code: 'now' }],
  ])('refuses %s, saying nothing of which factor failed', async (_name, fields) => {
    const sent: Record<string, string> = { ...fields };
    if (sent.code === 'now') sent.code = code(1);
    if (sent.code === 'old') sent.code = code(-4);
    expect(await signIn(sent)).toEqual({ ok: false, error: 'CredentialsSignin' });
  });

  it('takes no publisher session, and no ops cookie made with another key, for a staff session', async () => {
    const { demo } = await demoUsers(db);
    const publisher = await sessionCookie({ id: demo, email: 'demo@example.com', name: null }, services);
    expect(await signedInStaff(withCookie(opsCookieName(), publisher.value), services)).toBeNull();
    expect(await signedInStaff(withCookie(publisher.name, publisher.value), services)).toBeNull();
    expect(await signedInStaff(withCookie(opsCookieName(), 'not-a-token'), services)).toBeNull();
    expect(await signedInStaff(new Headers(), services)).toBeNull();
  });

  it('throttles guesses of the code', async () => {
    const answers = [];
    for (let i = 0; i < 12; i++) answers.push(await signIn({ email: DEMO_OPERATOR_EMAIL, password: DEMO_PASSWORD, code: String(100000 + i) }, '192.0.2.77'));
    expect(answers.at(-1)).toEqual({ ok: false, error: 'TooManyAttempts' });
  });
});
