import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { encode } from 'next-auth/jwt';
import { asStaff, opsCookieName, signedInStaff, STAFF_FACTOR_BUDGET, staffSignIn, staffSignOut } from '@/lib/identity/auth/staff';
import { staffCommand } from '@/lib/identity/auth/staff-command';
import { totpCode } from '@/lib/identity/auth/staff-totp';
import { sessionCookie, signInFromForm } from '@/lib/identity/auth/signin';
import { signUpFromForm } from '@/lib/identity/auth/signup';
import { sessionUser } from '@/lib/identity/auth/session';
import { userForIdentity } from '@/lib/identity/auth/users';
import { DEMO_OPERATOR_EMAIL, DEMO_OPERATOR_TOTP_SECRET, DEMO_PASSWORD } from '@/lib/demo/seed';
import { requireOAuthSecrets } from '@/lib/identity/secrets';
import type { Engine } from '@/lib/platform/db/engine';
import { sql } from '@/lib/platform/db/sql';
import type { Services } from '@/lib/services';
import { demoUsers, testEngines } from '../helpers/db';
import { makeServices } from '../helpers/services';

/**
 * Staff sign-in (lib/identity/auth/staff.ts): the operator console takes a password and a TOTP code, both;
 * a code signs in once; a publisher, whatever they send, and a publisher's session, reach no staff
 * session; and the staff session alone works the staff functions of the database. Issue 39: the
 * code has a hard budget of wrong guesses per account, from every address together, counted in
 * the database and unlocked only from the command line; staff accounts get no publisher session
 * from their password, and the publisher's forms do not say it was right; sign-out ends the staff
 * session on the server. On every engine.
 */

/** Steps apart between tests: each test's clock is later than the last one's, so a code one test spent is never one the next needs. */
let testIndex = 0;

for (const engine of testEngines()) {
  describe(`staff sign-in on ${engine.name}`, () => {
    let db: Engine;
    let services: Services;
    beforeAll(async () => {
      db = await engine.open();
    });
    afterAll(async () => {
      await db.close();
    });
    beforeEach(async () => {
      // The clock stopped in the middle of a 30-second step: a code made for "now" is still of now
      // when it is checked, however long the password hash takes (it failed once in a while when a
      // step ended in between).
      const now = Math.floor(Date.now() / 30_000) * 30_000 + 15_000 + testIndex++ * 300_000;
      services = makeServices({ database: db, now: () => now });
      // Each test starts with the factor unlocked and no wrong code counted (the earlier tests' wrong codes count too).
      await db.exec('delete from public.staff_factor_attempts; update public.staff_members set factor_locked_at = null;');
    });

    /** The code of the step `offset` steps from now: one step either side is accepted, each step once, in order. */
    const code = (offset: number) => totpCode(DEMO_OPERATOR_TOTP_SECRET, new Date(services.now() + offset * 30_000));
    const signIn = (fields: Record<string, string>, ip = '192.0.2.50', instance?: Services) => {
      const form = new FormData();
      for (const [k, v] of Object.entries(fields)) form.set(k, v);
      return staffSignIn(form, new Headers({ 'x-forwarded-for': ip }), instance ?? services);
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

    /** `count` six-digit codes that are none of the three the factor accepts now. */
    const wrongCodes = (count: number) => {
      const accepted = new Set([code(-1), code(0), code(1)]);
      const codes: string[] = [];
      for (let n = (Number(code(0)) + 500_000) % 1_000_000; codes.length < count; n = (n + 1) % 1_000_000) {
        const candidate = String(n).padStart(6, '0');
        if (!accepted.has(candidate)) codes.push(candidate);
      }
      return codes;
    };
    const auditLines = (action: string) =>
      db.query<{ action: string; subject: string; reason: string | null; details: Record<string, unknown> }>(
        `select l.action, l.subject, l.reason, l.details from public.staff_audit_log l join public.users u on u.id = l.staff_user_id
         where u.email = $1 and l.action = $2 order by l.id`,
        [DEMO_OPERATOR_EMAIL, action],
      );
    const operatorId = async () => (await db.query<{ id: string }>('select id from public.users where email = $1', [DEMO_OPERATOR_EMAIL]))[0]!.id;

    it(`locks the code after ${STAFF_FACTOR_BUDGET.codes} wrong ones from 300 addresses of one /48, on every instance, until unlocked from the command line`, async () => {
      const right = { email: DEMO_OPERATOR_EMAIL, password: DEMO_PASSWORD };
      const codes = wrongCodes(300);
      const answers: Awaited<ReturnType<typeof staffSignIn>>[] = [];
      // Thirty at once, each from a /64 of its own in 2001:db8:39::/48 (the sign-in throttle counts by /64), and
      // every other batch through a second instance of the service: the budget is the database's, not a process's.
      for (let batch = 0; batch < 10; batch++) {
        const instance = batch % 2 ? makeServices({ database: db, now: services.now }) : services;
        const slice = codes.slice(batch * 30, batch * 30 + 30);
        answers.push(...(await Promise.all(slice.map((c, j) => signIn({ ...right, code: c }, `2001:db8:39:${(batch * 30 + j).toString(16)}::1`, instance)))));
      }
      expect(answers.filter((a) => a.ok)).toEqual([]);
      expect(new Set(answers.map((a) => !a.ok && a.error))).toEqual(new Set(['CredentialsSignin', 'Locked']));
      expect(answers.filter((a) => !a.ok && a.error === 'Locked').length).toBeGreaterThanOrEqual(300 - 30);

      // Exactly the budget's codes were checked, and the lock is in the audit log, once.
      expect(await auditLines('staff.second_factor_locked')).toEqual([
        {
          action: 'staff.second_factor_locked',
          subject: await operatorId(),
          reason: expect.stringContaining(`${STAFF_FACTOR_BUDGET.codes} wrong codes in 24 hours`),
          details: { wrong_codes: STAFF_FACTOR_BUDGET.codes, budget: STAFF_FACTOR_BUDGET.codes, window_s: STAFF_FACTOR_BUDGET.windowS },
        },
      ]);

      // The right password and the right code, from a new address and a new instance: refused, with
      // the answer a wrong password gets, which says nothing of the password.
      const fresh = makeServices({ database: db, now: services.now });
      expect(await signIn({ ...right, code: code(0) }, '198.51.100.7', fresh)).toEqual({ ok: false, error: 'Locked' });
      expect(await signIn({ ...right, password: 'not-the-password', code: code(0) }, '198.51.100.8', fresh)).toEqual({ ok: false, error: 'Locked' });

      // Unlocked from the command line (npm run staff:unlock), audited: the right code signs in again.
      expect(await staffCommand(['unlock', DEMO_OPERATOR_EMAIL, 'Locked', 'by', 'the', 'test'], db)).toEqual({
        code: 0,
        message: expect.stringMatching(/^Unlocked the second factor of operator@example\.com \(20 wrong codes forgotten\)/),
      });
      expect(await auditLines('staff.second_factor_unlocked')).toEqual([
        expect.objectContaining({ reason: 'Locked by the test', details: expect.objectContaining({ wrong_codes_forgotten: 20, by: 'command line' }) }),
      ]);
      const back = await signIn({ ...right, code: code(0) }, '198.51.100.9', fresh);
      expect(back.ok).toBe(true);
    });

    it('the command line refuses what it cannot do', async () => {
      expect(await staffCommand([], db)).toMatchObject({ code: 2 });
      expect(await staffCommand(['lock', DEMO_OPERATOR_EMAIL], db)).toMatchObject({ code: 2 });
      expect(await staffCommand(['unlock', 'demo@example.com'], db)).toEqual({ code: 1, message: expect.stringContaining('no staff account') });
    });

    it('counts only wrong codes after the right password, and only for 24 hours', async () => {
      const right = { email: DEMO_OPERATOR_EMAIL, password: DEMO_PASSWORD };
      const locks = (await auditLines('staff.second_factor_locked')).length;
      // Strangers without the password cannot lock staff out: their codes are never checked.
      for (let i = 0; i < STAFF_FACTOR_BUDGET.codes + 10; i++) {
        expect(await signIn({ ...right, password: `guess-${i}`, code: code(0) }, `203.0.113.${i}`)).toEqual({ ok: false, error: 'CredentialsSignin' });
      }
      expect((await signIn({ ...right, code: code(-1) }, '198.51.100.20')).ok).toBe(true);
      // The operator's own code used again (a second tab, a retry) is refused, and is no wrong guess.
      for (let i = 0; i < STAFF_FACTOR_BUDGET.codes + 5; i++) {
        expect(await signIn({ ...right, code: code(-1) }, `2001:db8:42:${i.toString(16)}::1`)).toEqual({ ok: false, error: 'CredentialsSignin' });
      }

      // One short of the budget, then a day passes: those no longer count.
      const codes = wrongCodes(2 * (STAFF_FACTOR_BUDGET.codes - 1));
      for (const [i, c] of codes.slice(0, STAFF_FACTOR_BUDGET.codes - 1).entries()) {
        expect(await signIn({ ...right, code: c }, `2001:db8:40:${i.toString(16)}::1`)).toEqual({ ok: false, error: 'CredentialsSignin' });
      }
      await db.exec("update public.staff_factor_attempts set at = at - interval '24 hours 1 minute'");
      for (const [i, c] of codes.slice(STAFF_FACTOR_BUDGET.codes - 1).entries()) {
        expect(await signIn({ ...right, code: c }, `2001:db8:41:${i.toString(16)}::1`)).toEqual({ ok: false, error: 'CredentialsSignin' });
      }
      expect((await signIn({ ...right, code: code(0) }, '198.51.100.21')).ok).toBe(true);
      expect(await auditLines('staff.second_factor_locked')).toHaveLength(locks);
    });

    it('ends the staff session on the server at sign-out: a copy of the cookie kept from before is refused', async () => {
      const right = { email: DEMO_OPERATOR_EMAIL, password: DEMO_PASSWORD };
      const first = await signIn({ ...right, code: code(0) });
      const second = await signIn({ ...right, code: code(1) }, '192.0.2.51');
      if (!first.ok || !second.ok) throw new Error('staff sign-in failed');
      const kept = withCookie(first.cookie.name, first.cookie.value);
      expect(await signedInStaff(kept, services)).toMatchObject({ email: DEMO_OPERATOR_EMAIL });

      await staffSignOut(kept, services);
      expect(await signedInStaff(kept, services)).toBeNull();
      // On another instance too (the session is the database's), and in the other browser the session goes on.
      expect(await signedInStaff(kept, makeServices({ database: db }))).toBeNull();
      expect(await signedInStaff(withCookie(second.cookie.name, second.cookie.value), services)).toMatchObject({ email: DEMO_OPERATOR_EMAIL });

      // A cookie with the right key and both factors but no session on the server (as sign-in made them before): refused.
      const { sessionSecret } = await requireOAuthSecrets(services);
      const bare = await encode({
        token: { sub: first.user.id, email: DEMO_OPERATOR_EMAIL, name: null, aal: 'aal2', amr: ['pwd', 'otp'] },
        secret: sessionSecret,
        salt: 'monetize-ops-session',
        maxAge: 3600,
      });
      expect(await signedInStaff(withCookie(opsCookieName(), bare), services)).toBeNull();
    });

    describe('at the publisher’s sign-in', () => {
      const publisherForm = (fields: Record<string, string>) => {
        const form = new FormData();
        for (const [k, v] of Object.entries({ callbackUrl: '/dashboard', ...fields })) form.set(k, v);
        return form;
      };
      const from = (ip: string) => new Headers({ 'x-forwarded-for': ip });

      it('the operator’s password signs in nobody, answered exactly as a wrong one', async () => {
        const right = await signInFromForm(publisherForm({ email: DEMO_OPERATOR_EMAIL, password: DEMO_PASSWORD }), from('192.0.2.60'), services);
        const wrong = await signInFromForm(
          publisherForm({ email: DEMO_OPERATOR_EMAIL, password: 'not-the-password' }),
          from('192.0.2.60'),
          makeServices({ database: db, now: services.now }),
        );
        expect(right).toEqual({ ok: false, location: '/signin?error=CredentialsSignin&email=operator%40example.com&callbackUrl=%2Fdashboard' });
        expect(right).toEqual(wrong);
        // The sign-up form, which signs in an existing account with its password: the same answer as a wrong password.
        const signUp = (password: string) =>
          signUpFromForm(
            publisherForm({ email: DEMO_OPERATOR_EMAIL, password, name: 'Olive', company: '' }),
            from('192.0.2.61'),
            makeServices({ database: db }),
          );
        const [rightSignUp, wrongSignUp] = [await signUp(DEMO_PASSWORD), await signUp('not-the-password')];
        expect(rightSignUp).toMatchObject({ ok: false, location: expect.stringContaining('error=EmailTaken') });
        expect(rightSignUp).toEqual(wrongSignUp);
      });

      it('a publisher session naming a staff account, and a sign-in with a provider linked to one, sign in nobody', async () => {
        const operator = await operatorId();
        const cookie = await sessionCookie({ id: operator, email: DEMO_OPERATOR_EMAIL, name: null }, services);
        const secrets = await requireOAuthSecrets(services);
        expect(await sessionUser({ headers: withCookie(cookie.name, cookie.value) }, secrets, db)).toBeNull();
        // A publisher's cookie still names its publisher.
        const { demo } = await demoUsers(db);
        const publisher = await sessionCookie({ id: demo, email: 'demo@example.com', name: null }, services);
        expect(await sessionUser({ headers: withCookie(publisher.name, publisher.value) }, secrets, db)).toMatchObject({ id: demo });

        await db.query("insert into public.user_identities (provider, provider_user_id, user_id) values ('github', 'staff-39', $1)", [operator]);
        expect(await userForIdentity({ provider: 'github', providerUserId: 'staff-39', email: DEMO_OPERATOR_EMAIL, name: null }, db)).toEqual({
          ok: false,
          error: 'Staff sign in at /ops.',
        });
      });
    });
  });
}
